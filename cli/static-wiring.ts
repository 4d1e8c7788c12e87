import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import { MaterializingLauncher, type PlanLauncher } from '../provisioner/disruption/replacement-launcher.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import type { StaticLaunches } from '../provisioner/static/static-launches.js';
import { StaticReplicasController } from '../provisioner/static/static-replicas-controller.js';
import { coalescedWake, type RunnerHooks } from './runners.js';

export interface StaticWiring {
  readonly state: ClusterState;
  readonly nodeClaims: NodeClaimStore;
  readonly materializer: PlanLauncher;
  /** Shared with the disruption controller's static drift method. */
  readonly launches: StaticLaunches;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly log: Logger;
}

/** A wake is coalesced with the pass it would start anyway; the 10 s poll catches anything in between. */
const minWakeIntervalMs = 500;

/**
 * The static NodePool controller (gate StaticCapacity), for the leader's static runner: its launches run in the
 * background, and its deletes must not queue behind registration or termination. NodePool and NodeClaim changes wake
 * it, so `kubectl scale nodepool` acts within a second; its stop waits for the launches it began.
 */
export function staticCapacity(w: StaticWiring): { readonly controller: StaticReplicasController; readonly runner: RunnerHooks } {
  const log = w.log.child({ component: 'provisioner.static' });
  const controller = new StaticReplicasController({
    state: w.state, store: w.nodeClaims, launcher: new MaterializingLauncher(w.materializer), launches: w.launches,
    instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings, clock: systemClock, log,
  });
  const wakes = (runnerWake: (name: string) => void): (() => void) => {
    const wake = coalescedWake(runnerWake, minWakeIntervalMs, systemClock);
    return w.state.onChange((kind) => {
      if (kind === 'nodepool' || kind === 'nodeclaim') wake(controller.name);
    });
  };
  return { controller, runner: { log, wakes, afterStop: () => controller.settled() } };
}
