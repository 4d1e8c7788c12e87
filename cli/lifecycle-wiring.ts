import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import type { CloudProvider } from '../domain/cloud/cloud-provider.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import { ControllerRunner, type Controller } from '../provisioner/controller-runner.js';
import { controllerRuntimeMetrics } from '../provisioner/controller-metrics.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import { KubeLifecycleClient } from '../provisioner/kube/lifecycle-client.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import { lifecycleControllers, type LifecycleDependencies } from '../provisioner/lifecycle/controllers.js';
import { DriftController } from '../provisioner/lifecycle/drift.js';
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
import { startInterruption, type InterruptionSource } from './interruption-wiring.js';

export interface LifecycleWiring {
  readonly api: KubeRest;
  readonly state: ClusterState;
  readonly cloud: CloudProvider;
  readonly nodeClaims: NodeClaimStore;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** The interruption queue (when configured) and instance health, acted on by the leader. */
  readonly interruption?: InterruptionSource;
  /** EC2NodeClass and pricing controllers, run beside these; the `nodeclass.*` ones are woken when an EC2NodeClass changes. */
  readonly nodeClassControllers?: readonly Controller[];
  /** The priced catalog (instance type drift) and how often drift is rechecked in full; without it no Drifted is written. */
  readonly drift?: { readonly catalog: () => ReadonlyMap<string, InstanceType>; readonly recheckMs?: number };
  /** Karpenter's NodeRepair gate: replace nodes whose conditions have been unhealthy beyond the cloud's tolerations. */
  readonly nodeRepair?: boolean;
  /**
   * The gated kinds' controllers, each woken when its store changes: NodeOverlay (the overlays' conditions) and
   * CapacityBuffer (the buffers' room and status).
   */
  readonly watched?: readonly { readonly store: { onChange(listener: () => void): () => void }; readonly controller: Controller }[];
}

/** NodeClaim, NodePool and EC2NodeClass changes wake drift (Karpenter watches all three); NodeClaim changes wake expiry. */
function wakeOnChange(kind: string): readonly string[] {
  if (kind === 'nodeclaim') return ['nodeclaim.disruption.drift', 'nodeclaim.expiration'];
  // A new or changed NodePool (or its class) gets its READY and usage columns now, not at the next 10 s pass.
  if (kind === 'nodepool') return ['nodeclaim.disruption.drift', 'nodepool.readiness', 'nodepool.usage'];
  if (kind === 'ec2nodeclass') return ['nodeclaim.disruption.drift', 'nodepool.readiness'];
  return [];
}

/**
 * NodeClaim registration, liveness, termination and the garbage collectors, run by the leader only. They read the
 * cluster model and write through the API server.
 */
export function startLifecycleControllers(w: LifecycleWiring): { stop: () => Promise<void>; countDisrupted: (claim: NodeClaim, reason: string) => void } {
  const client = new KubeLifecycleClient(w.api);
  const nodes = modelNodeApi(w.state, new KubeNodeWriter(w.api));
  const metrics = new LifecycleMetrics(w.registry);
  const log = w.log.child({ component: 'provisioner.lifecycle' });
  const wake = { termination: (): void => undefined };
  const interruption = w.interruption === undefined ? undefined : startInterruption({
    ...w.interruption, state: w.state, store: w.nodeClaims, nodes, events: w.events, registry: w.registry, log: w.log, isLeader: w.isLeader,
    wakeTermination: () => { wake.termination(); }, onDisrupted: (claim, kind) => { metrics.disrupted.inc(actionFor(kind) === 'ForcefulTermination' ? disruptedLabels(claim, kind, 'forceful') : disruptedLabels(claim, kind)); },
  });
  const lifecycle = lifecycleControllers({
    store: new ModelNodeClaimStore(w.state, w.nodeClaims), nodes, pods: modelPodApi(w.state, client),
    cloud: w.cloud, clock: systemClock, recorder: w.events, volumes: client,
    plannedNodeNames: () => new Set(w.state.plans.keys()), metrics, log,
    ...(w.drift === undefined ? {} : { drift: driftDependencies(w.state, w.cloud, w.drift) }),
    ...(w.nodeRepair === true ? { repair: { nodePoolUid: (name: string) => w.state.nodePools.get(name)?.metadata.uid, onRepaired: () => { wake.termination(); } } } : {}),
  });
  const drift = lifecycle.find((c): c is DriftController => c instanceof DriftController);
  const runner = new ControllerRunner({
    clock: systemClock,
    controllers: [
      ...lifecycle,
      new NodePoolReadinessController(w.state, new KubeNodePoolStatusWriter(w.api), systemClock),
      new NodePoolUsageController(w.state, new KubeNodePoolStatusWriter(w.api)),
      ...(w.nodeClassControllers ?? []),
      ...(interruption?.controllers ?? []),
      ...(w.watched ?? []).map((entry) => entry.controller),
    ],
    shouldRun: w.isLeader,
    log,
    onError: (controller) => { metrics.reconcileErrors.inc({ controller }); },
    onReconciled: controllerRuntimeMetrics(w.registry),
  });
  wake.termination = () => { runner.wake('nodeclaim.termination'); };
  const running = runner.run();
  const unsubscribeWatched = (w.watched ?? []).map(({ store, controller }) => store.onChange(() => { runner.wake(controller.name); }));
  const unsubscribeRegistration = wakeRegistrationOnProgress(w.state, () => { runner.wake('nodeclaim.registration'); });
  const unsubscribeTermination = wakeTerminationOnDeletion(w.state, () => { wake.termination(); });
  const unsubscribe = w.state.onChange((kind, key) => {
    if (kind === 'ec2nodeclass') for (const c of w.nodeClassControllers ?? []) if (c.name.startsWith('nodeclass.')) runner.wake(c.name);
    drift?.noteChange(kind, key);
    for (const name of wakeOnChange(kind)) runner.wake(name);
  });
  return {
    // The disruption controller counts its deletions in the same `nodeclaims_disrupted_total`.
    // Karpenter labels voluntary disruptions with the NodePool's consolidationPolicy.
    countDisrupted: (claim, reason) => {
      const labels = disruptedLabels(claim, reason);
      metrics.disrupted.inc({ ...labels, consolidation_policy: w.state.nodePools.get(labels.nodepool)?.spec.disruption?.consolidationPolicy ?? '' });
    },
    stop: async () => {
      unsubscribe();
      unsubscribeRegistration();
      unsubscribeTermination();
      for (const unsubscribeOne of unsubscribeWatched) unsubscribeOne();
      await interruption?.stop();
      runner.stop();
      await running;
    },
  };
}

function driftDependencies(state: ClusterState, cloud: CloudProvider, drift: NonNullable<LifecycleWiring['drift']>): NonNullable<LifecycleDependencies['drift']> {
  const recheck = drift.recheckMs === undefined ? {} : { recheckMs: drift.recheckMs };
  return {
    reads: { nodePool: (name) => state.nodePools.get(name), nodeClass: (name) => state.nodeClasses.get(name), catalog: drift.catalog },
    facts: new CloudDriftFacts({ cloud, clock: systemClock, ...(drift.recheckMs === undefined ? {} : { refreshMs: drift.recheckMs }) }),
    ...recheck,
  };
}
