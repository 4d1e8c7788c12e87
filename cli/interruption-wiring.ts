import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import { systemClock } from '../domain/clock.js';
import type { InterruptionQueue } from '../domain/cloud/interruption-queue.js';
import type { UnavailableOfferings } from '../domain/cloud/unavailable-offerings.js';
import type { EventRecorder } from '../provisioner/events.js';
import { instanceLookup, type OwnedObjectsView } from '../provisioner/interruption/instance-lookup.js';
import { InterruptionController } from '../provisioner/interruption/interruption-controller.js';
import { InterruptionHandler } from '../provisioner/interruption/interruption-handler.js';
import type { MessageKind } from '../provisioner/interruption/message-kinds.js';
import { InterruptionMetrics } from '../provisioner/interruption/metrics.js';
import type { NodeApi } from '../provisioner/lifecycle/cluster-ports.js';
import type { NodeClaimStore } from '../provisioner/nodeclaim-store.js';

/** What the AWS provider hands over when an interruption queue is configured. */
export interface InterruptionSource {
  readonly queue: InterruptionQueue;
  readonly unavailableOfferings: UnavailableOfferings;
}

export interface InterruptionWiring extends InterruptionSource {
  /** The in-memory cluster state: NodeClaims and Nodes are found there, never by listing the API. */
  readonly state: OwnedObjectsView;
  readonly store: Pick<NodeClaimStore, 'delete'>;
  readonly nodes: Pick<NodeApi, 'cordonAndTaint'>;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** Runs termination's next pass now, so the drain starts within moments of the message. */
  readonly wakeTermination: () => void;
  readonly onDisrupted: (nodeClaim: NodeClaim, kind: MessageKind) => void;
}

/** The interruption queue reader, run by the leader only, in its own loop beside the controllers. */
export function startInterruption(w: InterruptionWiring): { stop: () => Promise<void> } {
  const log = w.log.child({ component: 'provisioner.interruption' });
  const handler = new InterruptionHandler({
    lookup: instanceLookup(w.state), store: w.store, nodes: w.nodes, recorder: w.events,
    unavailableOfferings: w.unavailableOfferings, now: () => systemClock.now(), log,
    onDisrupted: w.onDisrupted, onDeleted: () => { w.wakeTermination(); },
  });
  const controller = new InterruptionController({
    queue: w.queue, handler, clock: systemClock, metrics: new InterruptionMetrics(w.registry), isLeader: w.isLeader, log,
  });
  log.info({ queue: w.queue.name }, 'watching interruption queue');
  const running = controller.run();
  return {
    stop: async () => {
      controller.stop();
      await running;
    },
  };
}
