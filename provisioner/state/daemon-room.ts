import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { DaemonSet } from '../../domain/core/workloads.js';
import { pendingDaemonRequests } from '../../domain/daemon-reservation.js';
import type { Amounts } from '../index.js';
import type { NodeDigest } from './node-entry.js';

/**
 * The DaemonSet room a real node keeps for its daemons still to come. Only nodes of a NodePool keep it: those are the
 * nodes a provisioner launches and fills at once, and the ones Karpenter's scheduler holds it on; a node someone else
 * runs keeps its own rules. Recomputed with the node's other numbers, so the filter reads it without work; undefined when nothing is kept.
 */
export function daemonRoomOf(digest: NodeDigest, node: Node | undefined, context: {
  readonly daemonSets: ReadonlyMap<string, DaemonSet>;
  readonly podsOn: () => readonly Pod[];
  readonly claim: () => NodeClaim | undefined;
}): Amounts | undefined {
  if (digest.isVirtual || digest.nodePool === undefined || node === undefined || context.daemonSets.size === 0) return undefined;
  const target = { name: digest.name, labels: node.metadata.labels ?? {}, taints: node.spec?.taints ?? [], allocatable: digest.allocatable };
  const room = pendingDaemonRequests(context.daemonSets.values(), target, context.podsOn(), context.claim()?.spec.startupTaints ?? []);
  return Object.keys(room).length === 0 ? undefined : room;
}
