/**
 * A static NodePool (Karpenter's `spec.replicas`, gate StaticCapacity) keeps exactly that many nodes whatever the
 * pods: the planner never opens nodes in it, consolidation and emptiness never remove its nodes, and its own
 * controller launches and removes them. Only `limits.nodes` bounds it.
 */
export function isStaticNodePool(pool: { readonly spec: { readonly replicas?: number | undefined } } | undefined): boolean {
  return pool?.spec.replicas !== undefined;
}
