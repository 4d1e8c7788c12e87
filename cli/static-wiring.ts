import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';
import { ControllerRunner } from '../provisioner/controller-runner.js';
import { MaterializingLauncher, type PlanLauncher } from '../provisioner/disruption/replacement-launcher.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import type { StaticLaunches } from '../provisioner/static/static-launches.js';
import { StaticReplicasController } from '../provisioner/static/static-replicas-controller.js';

export interface StaticWiring {
  readonly state: ClusterState;
  readonly nodeClaims: NodeClaimStore;
  readonly materializer: PlanLauncher;
  /** Shared with the disruption controller's static drift method. */
  readonly launches: StaticLaunches;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly log: Logger;
  readonly isLeader: () => boolean;
}

/** A wake is coalesced with the pass it would start anyway; the 10 s poll catches anything in between. */
const minWakeIntervalMs = 500;

/**
 * The static NodePool controller (gate StaticCapacity), run by the leader on its own runner: its launches run in the
 * background, and its deletes must not queue behind registration or termination. NodePool and NodeClaim changes wake
 * it, so `kubectl scale nodepool` acts within a second.
 */
export function startStaticCapacity(w: StaticWiring): { stop: () => Promise<void> } {
  const log = w.log.child({ component: 'provisioner.static' });
  const controller = new StaticReplicasController({
    state: w.state, store: w.nodeClaims, launcher: new MaterializingLauncher(w.materializer), launches: w.launches,
    instanceTypes: w.instanceTypes, unavailableOfferings: w.unavailableOfferings, clock: systemClock, log,
  });
  const runner = new ControllerRunner({ clock: systemClock, controllers: [controller], shouldRun: w.isLeader, log });
  let lastWake = 0;
  const unsubscribe = w.state.onChange((kind) => {
    if (kind !== 'nodepool' && kind !== 'nodeclaim') return;
    const now = systemClock.now();
    if (now - lastWake < minWakeIntervalMs) return;
    lastWake = now;
    runner.wake(controller.name);
  });
  const running = runner.run();
  return {
    stop: async () => {
      unsubscribe();
      runner.stop();
      await running;
      await controller.settled();
    },
  };
}
