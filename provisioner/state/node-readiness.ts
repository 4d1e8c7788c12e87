import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import { launchableLabel } from '../../domain/product-keys.js';
import { unregisteredTaintKey } from '../../domain/karpenter-keys.js';
import { resourceAmount } from '../../domain/quantity.js';
import { sameTaint } from '../../domain/taints.js';
import { conditionTypes, isConditionTrue } from '../../domain/api/status-conditions.js';


/**
 * Taints that a healthy node loses by itself once its agents start (Karpenter's initialization
 * list). A node still carrying one is not initialized.
 */
const ephemeralTaintKeys = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.cloudprovider.kubernetes.io/uninitialized',
  unregisteredTaintKey,
]);

function isEphemeralTaint(t: Taint): boolean {
  return ephemeralTaintKeys.has(t.key) || t.key.startsWith('readiness.k8s.io/');
}

/**
 * The taints a planning pass holds a real node to, as Karpenter's StateNode.Taints: a node launched for a NodeClaim
 * that is not initialized yet is taken without its ephemeral taints and its NodeClaim's startup taints, which go by
 * themselves. Counted, they closed the node to every pod arriving meanwhile, and those were planned onto new
 * launches: a 1,000-pod burst's launched nodes carried not-ready for 0.5-1 s here; a kubelet's lasts 30 s and more,
 * a CNI's startup taint longer. An initialized node, or one no NodeClaim of ours stands behind, is taken as it is.
 */
export function schedulingTaints(node: Node, claim: NodeClaim | undefined): readonly Taint[] {
  const taints = node.spec?.taints ?? [];
  if (claim === undefined || isConditionTrue(claim, conditionTypes.initialized)) return taints;
  const startup = claim.spec.startupTaints ?? [];
  return taints.filter((t) => !isEphemeralTaint(t) && !startup.some((s) => sameTaint(s, t)));
}

export function isNodeReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** Virtual nodes stand for a plan, never for an instance, so they never register a NodeClaim. */
export function isVirtualNode(node: Node): boolean {
  return node.metadata.labels?.[launchableLabel] !== undefined;
}

/** Why the node is not initialized yet, or undefined when it is. */
export function initializationBlocker(claim: NodeClaim, node: Node): string | undefined {
  if (!isNodeReady(node)) return 'node is not ready';
  const taints = node.spec?.taints ?? [];
  const ephemeral = taints.find(isEphemeralTaint);
  if (ephemeral !== undefined) return `ephemeral taint ${ephemeral.key} is present`;
  const startup = (claim.spec.startupTaints ?? []).find((s) =>
    taints.some((t) => sameTaint(t, s)),
  );
  if (startup !== undefined) return `startup taint ${startup.key} is present`;
  const missing = unregisteredResource(claim, node);
  if (missing !== undefined) return `requested resource ${missing} is not registered on the node yet`;
  return undefined;
}

/**
 * A resource the NodeClaim's pods request that the node does not offer yet. The kubelet starts
 * extended resources (nvidia.com/gpu, aws.amazon.com/neuron) at zero until their device plugin
 * registers them; pods bound before then would fail admission (Karpenter's RequestedResourcesRegistered).
 */
function unregisteredResource(claim: NodeClaim, node: Node): string | undefined {
  const requests = claim.spec.resources?.requests ?? {};
  const allocatable = node.status?.allocatable ?? {};
  return Object.keys(requests).find((name) => {
    const requested = requests[name];
    if (requested === undefined || resourceAmount(name, requested) <= 0) return false;
    const offered = allocatable[name];
    return offered === undefined || resourceAmount(name, offered) <= 0;
  });
}

/** Real (non-virtual) nodes by spec.providerID. */
export function nodesByProviderId(nodes: readonly Node[]): Map<string, Node> {
  const map = new Map<string, Node>();
  for (const n of nodes) {
    const id = n.spec?.providerID;
    if (id !== undefined && id !== '' && !isVirtualNode(n)) map.set(id, n);
  }
  return map;
}
