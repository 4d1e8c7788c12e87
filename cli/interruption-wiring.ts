import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import { systemClock } from '../domain/clock.js';
import type { InstanceHealthSource } from '../domain/cloud/instance-health.js';
import type { InterruptionQueue } from '../domain/cloud/interruption-queue.js';
import type { UnavailableOfferings } from '../domain/cloud/unavailable-offerings.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import { instanceLookup, type OwnedObjectsView } from '../provisioner/interruption/instance-lookup.js';
import { InstanceStatusController } from '../provisioner/interruption/instance-status-controller.js';
import { InterruptionController } from '../provisioner/interruption/interruption-controller.js';
import { InterruptionHandler } from '../provisioner/interruption/interruption-handler.js';
import type { MessageKind } from '../provisioner/interruption/message-kinds.js';
import { InterruptionMetrics } from '../provisioner/interruption/metrics.js';
import type { NodeWriter } from '../provisioner/ports/node-writer.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { Loop } from './controllers.js';

/** What the AWS provider hands over: the queue (when configured), the ICE cache and instance health. */
export interface InterruptionSource {
  readonly queue?: InterruptionQueue;
  readonly unavailableOfferings: UnavailableOfferings;
  readonly health: InstanceHealthSource;
}

export interface InterruptionWiring extends InterruptionSource {
  /** The in-memory cluster state: NodeClaims and Nodes are found there, never by listing the API. */
  readonly state: OwnedObjectsView;
  readonly store: Pick<NodeClaimStore, 'delete' | 'addAnnotations'>;
  readonly nodes: Pick<NodeWriter, 'cordonAndTaint'>;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** Runs termination's next pass now, so the drain starts within moments of the message. */
  readonly wakeTermination: () => void;
  readonly onDisrupted: (nodeClaim: NodeClaim, kind: MessageKind) => void;
}

export interface InterruptionParts {
  /** The instance-status poller, for the lifecycle runner. */
  readonly instanceStatus: InstanceStatusController;
  /** The queue reader, a loop of its own, when a queue is configured. */
  readonly queue?: Loop;
}

/**
 * Interruption handling: the queue reader in its own loop (leader only, when a queue is configured),
 * and the instance-status poller as a controller for the leader's runner. Both act through one handler.
 */
export function interruption(w: InterruptionWiring): InterruptionParts {
  const log = w.log.child({ component: 'provisioner.interruption' });
  const metrics = new InterruptionMetrics(w.registry);
  const handler = new InterruptionHandler({
    lookup: instanceLookup(w.state), store: w.store, nodes: w.nodes, recorder: w.events, annotate: (name, annotations) => w.store.addAnnotations(name, annotations),
    unavailableOfferings: w.unavailableOfferings, now: () => systemClock.now(), log,
    onDisrupted: w.onDisrupted, onDeleted: () => { w.wakeTermination(); },
  });
  const instanceStatus = new InstanceStatusController({ source: w.health, handler, metrics, log });
  const queue = w.queue;
  if (queue === undefined) return { instanceStatus };
  const reader = new InterruptionController({ queue, handler, clock: systemClock, metrics, isLeader: w.isLeader, log });
  let running = Promise.resolve();
  return {
    instanceStatus,
    queue: {
      start: () => {
        log.info({ queue: queue.name }, 'watching interruption queue');
        running = reader.run();
      },
      stop: async () => {
        reader.stop();
        await running;
      },
    },
  };
}
