/**
 * The label, taint and annotation keys that belong to this product (not to Karpenter's API).
 * Karpenter's own keys (karpenter.sh/…, karpenter.k8s.aws/…) live with the API types.
 */
export const productDomain = 'nodesmith.io';

/** On every virtual ("launchable") Node: the plan's node, not yet an instance. kwok ignores these. */
export const launchableLabel = `${productDomain}/launchable`;

/** Taint on every virtual node so that only pods that accept a launch are placed there. */
export const launchableTaint = { key: `${productDomain}/launchable`, value: 'true', effect: 'NoSchedule' } as const;

/** On a virtual node: the NodeClaim-to-be's name, which the extender hands back at bind time. */
export const planNodeAnnotation = `${productDomain}/plan-node`;

/**
 * On a virtual node: a replica that is not the leader received a bind for it and asks the leader, through the API
 * server, to launch it (value: the asking replica and when). Only the leader launches; see DECISIONS.md, "Failover".
 */
export const launchRequestAnnotation = `${productDomain}/launch-requested`;

/**
 * On the controller's Lease, written by its holder: the URL at which the other replicas reach the leader's extender,
 * to hand it their binds (extender/bind-forward.ts).
 */
export const leaderExtenderUrlAnnotation = `${productDomain}/extender-url`;

/** Pod annotations that steer node choice (validated by the pod webhook, honoured by the plan). */
export const podAnnotations = {
  /** "spot" or "on-demand": preferred capacity type; the other is still allowed. */
  capacityTypePreference: `${productDomain}/capacity-type-preference`,
  /** Comma-separated instance families the pod may run on, e.g. "m7i,c7i". */
  instanceFamilies: `${productDomain}/instance-families`,
  /** Comma-separated instance families the pod must not run on, e.g. "t3,t3a". */
  excludedInstanceFamilies: `${productDomain}/excluded-instance-families`,
  /** Upper bound on the node's price in USD per hour, e.g. "0.25". */
  maxPricePerHour: `${productDomain}/max-price-per-hour`,
  /** Name of the NodePool to try first; others remain possible. */
  preferredNodePool: `${productDomain}/preferred-nodepool`,
  /** "true": do not add the launchable toleration (the pod only ever lands on existing nodes). */
  skipLaunchableToleration: `${productDomain}/no-launchable-toleration`,
} as const;

/**
 * On a disruption candidate's NodeClaim: the NodeClaims its command launches to replace it (comma-separated, empty
 * when none), written before the first launch, so a restart knows which NodeClaims an abandoned command left behind.
 */
export const disruptionReplacementsAnnotation = `${productDomain}/disruption-replacements`;

/** NodePool annotations of ours (validated by the NodePool webhook). */
export const nodePoolAnnotations = {
  /**
   * The least a consolidation move must save for this NodePool's nodes: a percentage of the candidates' price
   * ("10%") or a price per hour ("$0.05/h"). Below it nothing moves (churn control; docs/disruption.md).
   */
  consolidationMinSavings: `${productDomain}/consolidation-min-savings`,
} as const;

/** Tag on every EC2 resource we create, besides Karpenter's own tags. */
export const managedByTag = { key: `${productDomain}/managed-by`, value: 'nodesmith' } as const;
