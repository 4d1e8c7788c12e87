import type { Clock } from '../../domain/clock.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import type { ControllerLogger } from '../runtime/controller-runner.js';
import { LostNodeClaimGc } from '../gc/lost-nodeclaims.js';
import { OrphanInstanceGc } from '../gc/orphan-instances.js';
import { VirtualNodePodGc } from '../gc/virtual-node-pods.js';
import { VirtualNodeGc } from '../gc/virtual-nodes.js';
import type { LifecycleMetrics } from '../metrics.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { EventRecorder, NodeApi, PodApi, VolumeAttachmentApi } from '../ports/cluster-ports.js';
import { DriftController, type DriftReads } from './drift.js';
import type { ResolvedDriftFacts } from './drift-facts.js';
import { ExpirationController } from './expiration.js';
import { LivenessController } from './liveness.js';
import { NodeHealthController, type NodeHealthControllerOptions } from './node-health.js';
import { RegistrationController } from './registration.js';
import { TerminationController } from './termination.js';

export interface LifecycleDependencies {
  readonly store: NodeClaimStore;
  readonly nodes: NodeApi;
  readonly pods: PodApi;
  readonly cloud: CloudProvider;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  /** Names of the virtual nodes the current plans hold. */
  readonly plannedNodeNames: () => ReadonlySet<string>;
  /** The nodes' volume attachments, for termination's VolumesDetached; without it that condition is not written. */
  readonly volumes?: VolumeAttachmentApi;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
  /** What the drift check reads beyond the NodeClaims; without it no Drifted condition is written. */
  readonly drift?: { readonly reads: DriftReads; readonly facts: ResolvedDriftFacts; readonly recheckMs?: number };
  /** Node repair (the NodeRepair gate); without it unhealthy nodes are left alone, as in Karpenter by default. */
  readonly repair?: Pick<NodeHealthControllerOptions, 'nodePoolUid' | 'onRepaired'>;
}

/** The NodeClaim lifecycle and garbage-collection controllers, by role; cli/controllers.ts lists them in run order. */
export interface LifecycleControllers {
  readonly registration: RegistrationController;
  readonly liveness: LivenessController;
  readonly termination: TerminationController;
  readonly expiration: ExpirationController;
  /** With `drift` given. */
  readonly drift?: DriftController;
  /** With `repair` given (the NodeRepair gate). */
  readonly health?: NodeHealthController;
  readonly virtualNodes: VirtualNodeGc;
  readonly virtualNodePods: VirtualNodePodGc;
  readonly orphanInstances: OrphanInstanceGc;
  readonly lostNodeClaims: LostNodeClaimGc;
}

/** Builds every NodeClaim lifecycle and garbage-collection controller with default timings, for a runner gated on leadership. */
export function lifecycleControllers(deps: LifecycleDependencies): LifecycleControllers {
  const { store, nodes, pods, cloud, clock, recorder, plannedNodeNames } = deps;
  const common = {
    clock,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.log === undefined ? {} : { log: deps.log }),
  };
  return {
    registration: new RegistrationController({ store, nodes, cloud, ...common }),
    liveness: new LivenessController({ store, ...common }),
    termination: new TerminationController({ store, nodes, pods, cloud, recorder, ...(deps.volumes === undefined ? {} : { volumes: deps.volumes }), ...common }),
    expiration: new ExpirationController({ store, recorder, ...common }),
    ...(deps.drift === undefined ? {} : { drift: new DriftController({ store, recorder, ...deps.drift, ...common }) }),
    ...(deps.repair === undefined ? {} : { health: new NodeHealthController({ store, nodes, policies: cloud.repairPolicies(), recorder, ...deps.repair, ...common }) }),
    virtualNodes: new VirtualNodeGc({ nodes, plannedNodeNames, ...common }),
    virtualNodePods: new VirtualNodePodGc({ pods, recorder, ...common }),
    orphanInstances: new OrphanInstanceGc({ cloud, store, nodes, recorder, ...common }),
    lostNodeClaims: new LostNodeClaimGc({ store, cloud, nodes, recorder, ...common }),
  };
}
