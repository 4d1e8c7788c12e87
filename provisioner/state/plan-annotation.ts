import type { Node } from '../../domain/core/node.js';
import { launchableLabel, planNodeAnnotation } from '../../domain/product-keys.js';
import type { VirtualNodePlan } from '../index.js';

/**
 * The plan rides on its virtual Node as JSON in the `planNodeAnnotation`, so every extender replica and a
 * restarted provisioner rebuild it from the API server alone. Planning writes it, launch rewrites it once
 * materialised, the cluster state reads it back: all three meet here rather than in each other's folders.
 */
export function planText(plan: VirtualNodePlan): string {
  return JSON.stringify(plan);
}

/** Reads the plan back from a virtual Node; undefined for any other node or a damaged annotation. */
export function planOfNode(node: Node): VirtualNodePlan | undefined {
  if (node.metadata.labels?.[launchableLabel] !== 'true') return undefined;
  const text = node.metadata.annotations?.[planNodeAnnotation];
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as VirtualNodePlan;
    return typeof parsed.nodeName === 'string' && Array.isArray(parsed.assignedPods) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
