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

/** On every EC2NodeClass (Karpenter's AWS provider): the class stays until its NodeClaims and profile are gone. */
export const nodeClassFinalizer = 'karpenter.k8s.aws/termination';

/** The NodeClaim a launched Node or instance belongs to: an annotation on the Node, a tag on the instance. */
export const nodeClaimKey = 'karpenter.sh/nodeclaim';

/** On a pod or a node: `"true"` blocks voluntary disruption; on a pod, a duration blocks it for that long after start. */
export const doNotDisruptKey = 'karpenter.sh/do-not-disrupt';

/** Kubernetes' ReplicaSet scale-down hint, which Karpenter also reads as the cost of evicting the pod. */
export const podDeletionCostKey = 'controller.kubernetes.io/pod-deletion-cost';

/** Drift stamps on each NodeClaim: the NodePool template's hash when it was created, and the hash scheme's version. */
export const nodePoolHashKey = 'karpenter.sh/nodepool-hash';
export const nodePoolHashVersionKey = 'karpenter.sh/nodepool-hash-version';

/** The same for the EC2NodeClass (Karpenter's AWS provider). */
export const ec2NodeClassHashKey = 'karpenter.k8s.aws/ec2nodeclass-hash';
export const ec2NodeClassHashVersionKey = 'karpenter.k8s.aws/ec2nodeclass-hash-version';

/** On a NodeClaim with a terminationGracePeriod: when its drain is cut short (RFC 3339, set at deletion). */
export const terminationTimestampKey = 'karpenter.sh/nodeclaim-termination-timestamp';

/** `"true"` on a NodeClaim whose NodePool minValues Karpenter's scheduler relaxed (nodesmith never sets it). */
export const minValuesRelaxedKey = 'karpenter.sh/nodeclaim-min-values-relaxed';
