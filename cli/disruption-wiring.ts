import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import { ConsolidatableWriter } from '../provisioner/disruption/consolidatable-writer.js';
import { ConsolidationMethod } from '../provisioner/disruption/consolidation-method.js';
import { consolidationReport, type ConsolidationReport } from '../provisioner/disruption/consolidation-report.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import { DisruptionController } from '../provisioner/disruption/controller.js';
import { DisruptionEvents } from '../provisioner/disruption/disruption-events.js';
import { DriftMethod } from '../provisioner/disruption/drift-method.js';
import { EmptinessMethod } from '../provisioner/disruption/emptiness.js';
import { DisruptionMetrics } from '../provisioner/disruption/metrics.js';
import { offeringPrices } from '../provisioner/disruption/offering-prices.js';
import { PodEventTracker } from '../provisioner/disruption/pod-events.js';
import type { DisruptedCounter } from '../provisioner/disruption/ports.js';
import { MaterializingLauncher, type PlanLauncher } from '../provisioner/disruption/replacement-launcher.js';
import { StaticDriftMethod } from '../provisioner/disruption/static-drift-method.js';
import { WorkerSimulator } from '../provisioner/disruption/simulator/worker-simulator.js';
import type { StaticLaunches } from '../provisioner/static/static-launches.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import { roomPodsIn, type BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { coalescedWake, type RunnerHooks } from './runners.js';

export interface DisruptionWiring {
  readonly api: KubeRest;
  readonly state: ClusterState;
  readonly materializer: PlanLauncher;
  /** Straight to the API server: condition writes re-read there on a conflict. */
  readonly nodeClaims: NodeClaimStore;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly catalog: () => ReadonlyMap<string, InstanceType>;
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly countDisrupted?: DisruptedCounter;
  /** Multi- and single-node consolidation run after emptiness and drift when given. */
  readonly consolidation?: ConsolidationOptions;
  /** The static NodeClaims being launched, so static drift never bursts a static NodePool over its replicas or limit. */
  readonly staticLaunches: StaticLaunches;
  /** The CapacityBuffers' room (gate CapacityBuffer): emptiness keeps nodes holding it, consolidation keeps all of it. */
  readonly buffers?: BufferRoom;
}

/** A wake is coalesced with the pass it would start anyway; the poll (10 s) catches anything in between. */
const minWakeIntervalMs = 1000;

export interface DisruptionParts {
  /** The `Consolidatable` writer, run before the controller on the disruption runner. */
  readonly consolidatable: ConsolidatableWriter;
  readonly controller: DisruptionController;
  /** What consolidation would do now (`GET /debug/consolidation`), when consolidation is on. */
  readonly explain?: () => Promise<ConsolidationReport>;
  readonly runner: RunnerHooks;
}

/**
 * The disruption controller and the Consolidatable writer, for the leader's disruption runner: a command that
 * waits on a launch must not hold up registration or termination, which run on the lifecycle runner.
 */
export function disruptionParts(w: DisruptionWiring): DisruptionParts {
  const log = w.log.child({ component: 'provisioner.disruption' });
  const podEvents = new PodEventTracker(w.state, systemClock);
  const metrics = new DisruptionMetrics(w.registry);
  const priceOf = offeringPrices(w.catalog);
  const events = new DisruptionEvents(w.events);
  const roomOn = w.buffers === undefined ? undefined : (node: string): number => w.buffers?.roomOn(node) ?? 0;
  const consolidation = w.consolidation === undefined ? [] : (['multi', 'single'] as const).map((kind) => new ConsolidationMethod(kind, {
    clock: systemClock, priceOf, instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings, options: w.consolidation ?? { spotToSpot: false }, events,
    ...(roomOn === undefined ? {} : { roomOn }),
  }));
  // Every method's simulations run on this worker thread: a pass never holds the extender's event loop.
  const simulator = new WorkerSimulator();
  const controller = new DisruptionController({
    simulator, state: w.state, clock: systemClock, methods: [new EmptinessMethod(roomOn === undefined ? {} : { roomOn }), new StaticDriftMethod({ launches: w.staticLaunches, instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings }), new DriftMethod(), ...consolidation],
    nodes: new KubeNodeWriter(w.api), store: w.nodeClaims, launcher: new MaterializingLauncher(w.materializer),
    recorder: w.events, instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings, priceOf,
    metrics, log, ...(w.countDisrupted === undefined ? {} : { countDisrupted: w.countDisrupted }),
    ...(w.buffers === undefined ? {} : { roomPods: () => (w.buffers === undefined ? [] : roomPodsIn(w.state, w.buffers)) }),
  });
  const writer = new ConsolidatableWriter({ state: w.state, store: w.nodeClaims, podEvents, clock: systemClock, log });
  const options = w.consolidation;
  const explain = options === undefined ? undefined : consolidationReport({
    state: w.state, clock: systemClock, instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings, priceOf, options, isLeader: w.isLeader, methods: consolidation,
    // The debug endpoint's simulations queue on the controller's worker too: a request never holds the extender.
    simulator,
  });
  return {
    consolidatable: writer, controller, ...(explain === undefined ? {} : { explain }),
    runner: {
      log,
      wakes: (wake) => disruptionWakes(w.state, controller.name, writer.name, wake),
      beforeStop: () => { podEvents.stop(); },
      afterStop: () => simulator.close(),
    },
  };
}

/** NodeClaim and NodePool changes wake the controller, pod and NodePool changes the writer, each at most once a second. */
function disruptionWakes(state: ClusterState, controller: string, writer: string, runnerWake: (name: string) => void): () => void {
  const wake = coalescedWake(runnerWake, minWakeIntervalMs, systemClock);
  return state.onChange((kind) => {
    if (kind === 'nodeclaim' || kind === 'nodepool') wake(controller);
    if (kind === 'pod' || kind === 'nodepool') wake(writer);
  });
}
