import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import type { CloudProvider } from '../domain/cloud/cloud-provider.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import type { Controller } from '../provisioner/runtime/controller-runner.js';
import { controllerRuntimeMetrics } from '../provisioner/controller-metrics.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import { KubeLifecycleClient } from '../provisioner/kube/lifecycle-client.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import { lifecycleControllers, type LifecycleControllers, type LifecycleDependencies } from '../provisioner/lifecycle/controllers.js';
import type { DriftController } from '../provisioner/lifecycle/drift.js';
import { CloudDriftFacts } from '../provisioner/lifecycle/drift-facts.js';
import { wakeRegistrationOnProgress } from '../provisioner/lifecycle/registration-wake.js';
import { wakeTerminationOnDeletion } from '../provisioner/lifecycle/termination-wake.js';
import { ModelNodeClaimStore, modelNodeApi, modelPodApi } from '../provisioner/ports/model-ports.js';
import { KubeNodePoolStatusWriter } from '../provisioner/kube/nodepool-status-client.js';
import { NodePoolReadinessController } from '../provisioner/provisioning/nodepool-readiness.js';
import { NodePoolUsageController } from '../provisioner/provisioning/nodepool-usage.js';
import { LifecycleMetrics, disruptedLabels } from '../provisioner/metrics.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import { actionFor } from '../provisioner/interruption/message-kinds.js';
import { interruption, type InterruptionParts, type InterruptionSource } from './interruption-wiring.js';
import type { RunnerHooks } from './runners.js';

export interface LifecycleWiring {
  readonly api: KubeRest;
  readonly state: ClusterState;
  readonly cloud: CloudProvider;
  readonly nodeClaims: NodeClaimStore;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** Wakes a controller on the runner that runs it: termination, right after an interruption or a repair. */
  readonly wake: (name: string) => void;
  /** The interruption queue (when configured) and instance health, acted on by the leader. */
  readonly interruption: InterruptionSource;
  /** The priced catalog (instance type drift) and how often drift is rechecked in full; without it no Drifted is written. */
  readonly drift?: { readonly catalog: () => ReadonlyMap<string, InstanceType>; readonly recheckMs?: number };
  /** Karpenter's NodeRepair gate: replace nodes whose conditions have been unhealthy beyond the cloud's tolerations. */
  readonly nodeRepair?: boolean;
  /**
   * The gated kinds' stores, each waking its controller on the lifecycle runner when it changes: NodeOverlay (the
   * overlays' conditions) and CapacityBuffer (the buffers' room and status).
   */
  readonly watched?: readonly Watched[];
}

/** A store whose changes wake this controller. */
export interface Watched {
  readonly store: { onChange(listener: () => void): () => void };
  readonly controller: Controller;
}

export interface LifecycleParts {
  readonly controllers: LifecycleControllers;
  readonly nodePools: { readonly readiness: NodePoolReadinessController; readonly usage: NodePoolUsageController };
  readonly interruption: InterruptionParts;
  /**
   * The disruption controller counts its deletions in the same `nodeclaims_disrupted_total`.
   * Karpenter labels voluntary disruptions with the NodePool's consolidationPolicy.
   */
  readonly countDisrupted: (claim: NodeClaim, reason: string) => void;
  /** The lifecycle runner's logger, error counter, reconcile metrics and wakes. */
  readonly runner: RunnerHooks;
}

/**
 * NodeClaim, NodePool and EC2NodeClass changes wake drift (Karpenter watches all three); NodeClaim changes wake expiry;
 * a ProvisioningRequest's change wakes its controller.
 */
function wakeOnChange(kind: string): readonly string[] {
  if (kind === 'nodeclaim') return ['nodeclaim.disruption.drift', 'nodeclaim.expiration'];
  // A new or changed NodePool (or its class) gets its READY and usage columns now, not at the next 10 s pass.
  if (kind === 'nodepool') return ['nodeclaim.disruption.drift', 'nodepool.readiness', 'nodepool.usage'];
  if (kind === 'ec2nodeclass') return ['nodeclaim.disruption.drift', 'nodepool.readiness'];
  // A new request is answered now, not at the next 10 s pass (Kueue waits on its answer to admit a job).
  if (kind === 'provisioningrequest') return ['provisioningrequest'];
  return [];
}

/**
 * NodeClaim registration, liveness, termination, the garbage collectors, the NodePools' status and interruption
 * handling, for the leader's lifecycle runner. They read the cluster model and write through the API server.
 */
export function lifecycleParts(w: LifecycleWiring): LifecycleParts {
  const client = new KubeLifecycleClient(w.api);
  const nodes = modelNodeApi(w.state, new KubeNodeWriter(w.api));
  const metrics = new LifecycleMetrics(w.registry);
  const log = w.log.child({ component: 'provisioner.lifecycle' });
  const wakeTermination = (): void => { w.wake('nodeclaim.termination'); };
  const handling = interruption({
    ...w.interruption, state: w.state, store: w.nodeClaims, nodes, events: w.events, registry: w.registry, log: w.log, isLeader: w.isLeader,
    wakeTermination, onDisrupted: (claim, kind) => { metrics.disrupted.inc(actionFor(kind) === 'ForcefulTermination' ? disruptedLabels(claim, kind, 'forceful') : disruptedLabels(claim, kind)); },
  });
  const controllers = lifecycleControllers({
    store: new ModelNodeClaimStore(w.state, w.nodeClaims), nodes, pods: modelPodApi(w.state, client),
    cloud: w.cloud, clock: systemClock, recorder: w.events, volumes: client,
    plannedNodeNames: () => new Set(w.state.plans.keys()), metrics, log,
    ...(w.drift === undefined ? {} : { drift: driftDependencies(w.state, w.cloud, w.drift) }),
    ...(w.nodeRepair === true ? { repair: { nodePoolUid: (name: string) => w.state.nodePools.get(name)?.metadata.uid, onRepaired: wakeTermination } } : {}),
  });
  return {
    controllers,
    nodePools: { readiness: new NodePoolReadinessController({ state: w.state, writer: new KubeNodePoolStatusWriter(w.api), clock: systemClock }), usage: new NodePoolUsageController({ state: w.state, writer: new KubeNodePoolStatusWriter(w.api) }) },
    interruption: handling,
    countDisrupted: (claim, reason) => {
      const labels = disruptedLabels(claim, reason);
      metrics.disrupted.inc({ ...labels, consolidation_policy: w.state.nodePools.get(labels.nodepool)?.spec.disruption?.consolidationPolicy ?? '' });
    },
    runner: {
      log,
      onError: (controller) => { metrics.reconcileErrors.inc({ controller }); },
      onReconciled: controllerRuntimeMetrics(w.registry),
      wakes: (wake, names) => lifecycleWakes(w, controllers.drift, wake, names),
    },
  };
}

/**
 * What wakes the lifecycle runner's controllers before their period: a registration's progress, a deletion, the
 * gated kinds' stores, and NodeClaim, NodePool and EC2NodeClass changes (every `nodeclass.*` controller on the
 * runner wakes on an EC2NodeClass change). Returns the unsubscribe.
 */
function lifecycleWakes(w: LifecycleWiring, drift: DriftController | undefined, wake: (name: string) => void, names: readonly string[]): () => void {
  const unsubscribeWatched = (w.watched ?? []).map(({ store, controller }) => store.onChange(() => { wake(controller.name); }));
  const unsubscribeRegistration = wakeRegistrationOnProgress(w.state, () => { wake('nodeclaim.registration'); });
  const unsubscribeTermination = wakeTerminationOnDeletion(w.state, () => { wake('nodeclaim.termination'); });
  const nodeClassControllers = names.filter((name) => name.startsWith('nodeclass.'));
  const unsubscribe = w.state.onChange((kind, key) => {
    if (kind === 'ec2nodeclass') for (const name of nodeClassControllers) wake(name);
    drift?.noteChange(kind, key);
    for (const name of wakeOnChange(kind)) wake(name);
  });
  return () => {
    unsubscribe();
    unsubscribeRegistration();
    unsubscribeTermination();
    for (const unsubscribeOne of unsubscribeWatched) unsubscribeOne();
  };
}

function driftDependencies(state: ClusterState, cloud: CloudProvider, drift: NonNullable<LifecycleWiring['drift']>): NonNullable<LifecycleDependencies['drift']> {
  const recheck = drift.recheckMs === undefined ? {} : { recheckMs: drift.recheckMs };
  return {
    reads: { nodePool: (name) => state.nodePools.get(name), nodeClass: (name) => state.nodeClasses.get(name), catalog: drift.catalog },
    facts: new CloudDriftFacts({ cloud, clock: systemClock, placementGroups: state.placementGroups, ...(drift.recheckMs === undefined ? {} : { refreshMs: drift.recheckMs }) }),
    ...recheck,
  };
}
