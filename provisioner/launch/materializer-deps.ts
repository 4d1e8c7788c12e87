import type { Clock } from '../../domain/clock.js';
import type { CloudProvider, LaunchedInstance, NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { EventRecorder } from '../ports/events.js';
import type { VirtualNodePlan } from '../index.js';
import type { NodeWriter } from '../ports/node-writer.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { ClusterState } from '../state/cluster-state.js';

// Its own file so that launch-instance.ts, which the materializer calls, can take the same dependencies without
// importing the materializer back (a circle import-x/no-cycle reports, issue 36).
export interface MaterializerDeps {
  readonly state: ClusterState;
  readonly nodeClaims: NodeClaimStore;
  readonly nodes: Pick<NodeWriter, 'createIfAbsent' | 'delete' | 'annotate'>;
  readonly cloud: CloudProvider;
  readonly resolver: NodeClassResolver;
  readonly catalog: () => ReadonlyMap<string, InstanceType>;
  /** The ICE cache's current keys (`capacityType:instanceType:zone`). */
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly onLaunched?: (instance: LaunchedInstance, plan: VirtualNodePlan, seconds: number) => void;
  /**
   * Only the leader launches: a standby's binds go through LeaderRoutedMaterializer, and this refuses anything
   * that reaches it on a replica that does not lead (a Lease lost mid-way), so no path launches twice.
   */
  readonly isLeader?: () => boolean;
}
