import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { InstanceLookup } from './interruption-handler.js';

/** The part of the cluster model the lookup reads (ClusterState satisfies it). */
export interface OwnedObjectsView {
  nodeClaimByInstanceId(instanceId: string): NodeClaim | undefined;
  readonly nodes: ReadonlyMap<string, Node>;
}

/** Finds the NodeClaim (and its Node) for an instance id through the model's index, from memory. */
export function instanceLookup(view: OwnedObjectsView): InstanceLookup {
  return (instanceId) => {
    const nodeClaim = view.nodeClaimByInstanceId(instanceId);
    if (nodeClaim === undefined) return undefined;
    const providerID = nodeClaim.status?.providerID ?? '';
    const node = view.nodes.get(nodeClaim.status?.nodeName ?? '') ?? view.nodes.get(instanceId);
    return node?.spec?.providerID === providerID ? { nodeClaim, node } : { nodeClaim };
  };
}
