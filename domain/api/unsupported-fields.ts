/**
 * What Karpenter's API offers and nodesmith does not do yet: the one list. Admission (the webhooks, and so
 * `nodesmith validate` and `nodesmith plan`) refuses each field here, and the controller refuses to start with
 * each gate here turned on, rather than accept them and do nothing. The CRDs keep these fields, so Karpenter's
 * manifests still parse and the refusal can name the field. A change that honours one removes its entry, its
 * row in docs/api-fields.md and the test case that expects the refusal.
 */

/** The kinds whose fields admission checks against this list, keyed as `apiVersion/kind`. */
export type CheckedKind = 'karpenter.sh/v1/NodePool' | 'karpenter.k8s.aws/v1/EC2NodeClass' | 'karpenter.sh/v1/NodeClaim';

export interface UnsupportedField {
  readonly kind: CheckedKind;
  /** The field; `[]` stands for every item of a list (`spec.blockDeviceMappings[].ebs.volumeInitializationRate`). */
  readonly path: string;
  /** Said after the field path: what is not supported, and what to do instead. */
  readonly message: string;
}

/** Where each missing feature is tracked; every refusal names it so the user knows where to follow it. */
const newerApis = 'follow nodesmith issue #27, docs/api-fields.md';

/**
 * Empty since issue 34 item 1: every field of Karpenter v1.15's EC2NodeClass, NodePool and NodeClaim is honoured. The
 * list stays the one place a field nodesmith cannot honour yet is refused, with its entry and a sample in
 * test/domain/api/unsupported-samples.ts.
 */
export const unsupportedFields: readonly UnsupportedField[] = [];

/**
 * Karpenter's feature gates that turn on a feature nodesmith does not have. Turned on, they stop the controller
 * at start with this message; turned off (their default), they change nothing, as in Karpenter.
 */
export const unsupportedFeatureGates: Readonly<Record<string, string>> = {};

/**
 * Versions of Karpenter's kinds that nodesmith's CRDs do not serve, so the API server refuses them ("no matches for
 * kind"); `nodesmith validate` and `plan` refuse them with this message instead of skipping them silently.
 */
export const unsupportedKinds: Readonly<Record<string, string>> = {
  'autoscaling.x-k8s.io/v1alpha1/CapacityBuffer': `CapacityBuffer v1alpha1 is not served: Karpenter v1.15 serves autoscaling.x-k8s.io/v1beta1, and so does nodesmith (${newerApis})`,
};
