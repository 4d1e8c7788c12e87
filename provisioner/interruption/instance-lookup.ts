import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { parseProviderId } from '../../domain/cloud/provider-id.js';
import type { Node } from '../../domain/core/node.js';
import type { InstanceLookup } from './interruption-handler.js';

/** The part of the cluster state the lookup reads (ClusterState satisfies it). */
export interface OwnedObjectsView {
  readonly nodeClaims: ReadonlyMap<string, NodeClaim>;
  readonly nodes: ReadonlyMap<string, Node>;
}

/**
 * Finds the NodeClaim (and Node) for an instance id in memory. A linear scan: messages come at
 * most ten per receive, and NodeClaims number in the thousands at most.
 */
export function instanceLookup(view: OwnedObjectsView): InstanceLookup {
  return (instanceId) => {
    for (const nodeClaim of view.nodeClaims.values()) {
      const providerID = nodeClaim.status?.providerID ?? '';
      if (parseProviderId(providerID)?.instanceId !== instanceId) continue;
      const node = view.nodes.get(nodeClaim.status?.nodeName ?? '') ?? view.nodes.get(instanceId);
      return node?.spec?.providerID === providerID ? { nodeClaim, node } : { nodeClaim };
    }
    return undefined;
  };
}
