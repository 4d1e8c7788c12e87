/**
 * Karpenter's own taint, finalizer, annotation and tag keys (facts §1b), kept exact so that existing manifests,
 * dashboards and tooling keep working. Label keys are in well-known-labels.ts; our own keys in product-keys.ts.
 */

/** On a node being disrupted or terminated: no new pods; pods that tolerate it are not drained. */
export const disruptedTaint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;

/** Karpenter registers nodes with this taint; registration removes it. */
export const unregisteredTaintKey = 'karpenter.sh/unregistered';

/** On every NodeClaim (and its Node): the instance is terminated before the object goes. */
export const terminationFinalizer = 'karpenter.sh/termination';

/** The NodeClaim a launched Node or instance belongs to: an annotation on the Node, a tag on the instance. */
export const nodeClaimKey = 'karpenter.sh/nodeclaim';
