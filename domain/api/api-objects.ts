import { defaultEC2NodeClass, validateEC2NodeClass } from './ec2nodeclass-validation.js';
import { defaultNodeClaim, validateNodeClaim } from './nodeclaim-validation.js';
import { defaultNodeOverlay, validateNodeOverlay } from './nodeoverlay-validation.js';
import { defaultCapacityBuffer, validateCapacityBuffer } from './capacitybuffer-validation.js';
import { defaultNodePool, validateNodePool } from './nodepool-validation.js';
import { checkPodResources } from './pod-resource-rules.js';
import { checkPodSteeringAnnotations } from './pod-steering-rules.js';
import { problem, type Problem } from './problem.js';
import { unsupportedKinds } from './unsupported-fields.js';
import type { AdmissionGates } from './feature-gates.js';

/** What we know how to default and validate, keyed by `apiVersion/kind`. */
export interface ApiKind {
  readonly withDefaults: <T>(object: T) => T;
  /** `gates`: the feature gates the controller runs with (default: Karpenter's); only gated fields read them. */
  readonly validate: (object: unknown, old?: unknown, gates?: AdmissionGates) => Problem[];
}

const identity = <T>(object: T): T => object;

type PodShaped = { metadata?: { annotations?: Record<string, string> }; spec?: unknown } | null | undefined;

/** A pod's (or pod template's) steering annotations and resource quantities, under `base` ('' for a Pod). */
function checkPodShaped(pod: PodShaped, base: string): Problem[] {
  const at = (field: string): string => (base === '' ? field : `${base}.${field}`);
  return [
    ...checkPodSteeringAnnotations(pod?.metadata?.annotations, at('metadata.annotations')),
    ...checkPodResources(pod?.spec, at('spec')),
  ];
}

/** Workloads carry the steering annotations and requests on their pod template; they are checked there. */
function podTemplateKind(templatePath: readonly string[]): ApiKind {
  return {
    withDefaults: identity,
    validate: (object) => {
      let template: unknown = object;
      for (const key of templatePath) template = (template as Record<string, unknown> | null | undefined)?.[key];
      return checkPodShaped(template as PodShaped, templatePath.join('.'));
    },
  };
}

/** A kind nodesmith has no feature for: every object of it is refused with the kind's message. */
function refusedKind(message: string): ApiKind {
  return { withDefaults: identity, validate: (object) => [problem('kind', 'not-supported-yet', (object as { kind?: unknown } | null)?.kind, message)] };
}

export const apiKinds: Readonly<Record<string, ApiKind>> = {
  ...Object.fromEntries(Object.entries(unsupportedKinds).map(([key, message]) => [key, refusedKind(message)])),
  'karpenter.sh/v1/NodePool': { withDefaults: defaultNodePool, validate: validateNodePool },
  'karpenter.sh/v1/NodeClaim': { withDefaults: defaultNodeClaim, validate: validateNodeClaim },
  'karpenter.k8s.aws/v1/EC2NodeClass': { withDefaults: defaultEC2NodeClass, validate: validateEC2NodeClass },
  'karpenter.sh/v1alpha1/NodeOverlay': { withDefaults: defaultNodeOverlay, validate: validateNodeOverlay },
  'autoscaling.x-k8s.io/v1beta1/CapacityBuffer': { withDefaults: defaultCapacityBuffer, validate: validateCapacityBuffer },
  'apps/v1/Deployment': podTemplateKind(['spec', 'template']),
  'apps/v1/StatefulSet': podTemplateKind(['spec', 'template']),
  'apps/v1/ReplicaSet': podTemplateKind(['spec', 'template']),
  'apps/v1/DaemonSet': podTemplateKind(['spec', 'template']),
  'batch/v1/Job': podTemplateKind(['spec', 'template']),
  'batch/v1/CronJob': podTemplateKind(['spec', 'jobTemplate', 'spec', 'template']),
  'v1/Pod': {
    withDefaults: identity,
    validate: (object) => checkPodShaped(object as PodShaped, ''),
  },
};

export function apiKindOf(object: unknown): ApiKind | undefined {
  const o = object as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof o?.apiVersion !== 'string' || typeof o.kind !== 'string') return undefined;
  return apiKinds[`${o.apiVersion}/${o.kind}`];
}

/** An object after the admission gate: defaulted, with every problem the API server and our webhooks would report. */
export interface AdmittedObject {
  readonly object: unknown;
  readonly problems: readonly Problem[];
}

/**
 * The one gate every way in shares (webhooks, `validate`, `plan`): defaults, then validates, as the API
 * server plus our webhooks would on CREATE. Undefined for kinds we don't know (the caller decides whether
 * that is worth a note).
 */
export function admitObject(object: unknown, gates?: AdmissionGates): AdmittedObject | undefined {
  const kind = apiKindOf(object);
  if (kind === undefined) return undefined;
  const defaulted = kind.withDefaults(object);
  return { object: defaulted, problems: kind.validate(defaulted, undefined, gates) };
}
