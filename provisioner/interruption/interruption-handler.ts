import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { OfferingKey } from '../../domain/cloud/offering.js';
import { parseProviderId } from '../../domain/cloud/provider-id.js';
import type { Node } from '../../domain/core/node.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { silentLogger, type ControllerLogger } from '../runtime/controller-runner.js';
import type { EventRecorder, EventTarget } from '../ports/events.js';
import { terminationTimestampValue } from '../../domain/disruption/node-deadlines.js';
import { disruptedTaint, terminationTimestampKey } from '../../domain/karpenter-keys.js';
import type { NodeWriter } from '../ports/node-writer.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { actionFor, noticeFor, type InterruptionMessage, type MessageKind } from './message-kinds.js';

/** A NodeClaim of ours and its Node, found by EC2 instance id. */
export interface InstanceOwner {
  readonly nodeClaim: NodeClaim;
  readonly node?: Node;
}

/** Reads the in-memory cluster state; never lists the API per message. */
export type InstanceLookup = (instanceId: string) => InstanceOwner | undefined;

export interface InterruptionHandlerOptions {
  readonly lookup: InstanceLookup;
  readonly store: Pick<NodeClaimStore, 'delete'>;
  readonly nodes: Pick<NodeWriter, 'cordonAndTaint'>;
  readonly recorder: EventRecorder;
  /** The ICE cache the planner and launches read. */
  readonly unavailableOfferings: { markUnavailable(offering: OfferingKey): void };
  /** Sets annotations on a NodeClaim (for forceful termination); without it forceful acts as graceful. */
  readonly annotate?: (nodeClaimName: string, annotations: Readonly<Record<string, string>>) => Promise<void>;
  readonly now: () => number;
  /** Counts `nodeclaims_disrupted_total{reason=<kind>}`. */
  readonly onDisrupted?: (nodeClaim: NodeClaim, kind: MessageKind) => void;
  /** After a deletion, so termination starts draining now instead of at its next pass. */
  readonly onDeleted?: (nodeClaimName: string) => void;
  readonly log?: ControllerLogger;
}

/**
 * Acts on interruption messages as Karpenter's InterruptionHandler does: an Event for every kind,
 * a spot warning marks the spot offering unavailable (so the replacement goes elsewhere), a capacity reservation
 * interruption the reserved one, and
 * CordonAndDrain deletes the NodeClaim so the termination controller drains it. The Node is
 * cordoned and tainted here at once: nothing new lands on it while the pods' replacements are
 * planned, even before termination's first pass.
 */
export class InterruptionHandler {
  readonly #o: InterruptionHandlerOptions;

  constructor(options: InterruptionHandlerOptions) {
    this.#o = options;
  }

  /** Returns whether any instance in the message belongs to one of our NodeClaims. */
  async handle(message: InterruptionMessage): Promise<boolean> {
    if (message.kind === 'no_op') return false;
    let found = false;
    for (const instanceId of message.instanceIds) {
      const owner = this.#o.lookup(instanceId);
      if (owner === undefined) continue;
      found = true;
      await this.#act(message.kind, owner);
    }
    return found;
  }

  async #act(kind: MessageKind, owner: InstanceOwner): Promise<void> {
    const { nodeClaim, node } = owner;
    const name = nodeClaim.metadata.name ?? '';
    const action = actionFor(kind);
    const log = this.#o.log ?? silentLogger;
    log.info({ component: 'interruption', nodeClaim: name, node: node?.metadata.name, kind, action }, 'received interruption for nodeclaim');
    this.#notify(kind, owner);
    // As Karpenter: the replacement goes elsewhere than the spot pool, or the reservation, that is taking nodes back.
    if (kind === 'spot_interrupted') this.#markUnavailable(owner, 'spot');
    if (kind === 'capacity_reservation_interrupted') this.#markUnavailable(owner, 'reserved');
    if (action === 'NoAction') return;
    if (action === 'ForcefulTermination') await this.#annotateTermination(nodeClaim);
    await this.#deleteNodeClaim(kind, owner);
  }

  #notify(kind: MessageKind, owner: InstanceOwner): void {
    const notice = noticeFor(kind);
    if (notice === undefined) return;
    for (const target of targets(owner)) this.#o.recorder.record(target, 'Warning', notice.reason, notice.message);
  }

  #markUnavailable({ nodeClaim, node }: InstanceOwner, capacityType: 'spot' | 'reserved'): void {
    const label = (key: string): string | undefined => nodeClaim.metadata.labels?.[key] ?? node?.metadata.labels?.[key];
    const instanceType = label(wellKnown.instanceType);
    const zone = label(wellKnown.zone) ?? parseProviderId(nodeClaim.status?.providerID ?? '')?.zone;
    if (instanceType === undefined || zone === undefined) return;
    this.#o.unavailableOfferings.markUnavailable({ instanceType, zone, capacityType });
  }

  async #annotateTermination(nodeClaim: NodeClaim): Promise<void> {
    // The deadline is now: termination deletes every pod at once (each keeps its own grace period) instead of
    // waiting on PDBs, and terminates the instance without waiting for a graceful drain.
    if (nodeClaim.metadata.annotations?.[terminationTimestampKey] !== undefined) return;
    await this.#o.annotate?.(nodeClaim.metadata.name ?? '', { [terminationTimestampKey]: terminationTimestampValue(this.#o.now()) });
  }

  async #deleteNodeClaim(kind: MessageKind, { nodeClaim, node }: InstanceOwner): Promise<void> {
    // Already terminating: a duplicate or a later message about the same instance changes nothing.
    if (nodeClaim.metadata.deletionTimestamp !== undefined) return;
    const name = nodeClaim.metadata.name ?? '';
    const nodeName = node?.metadata.name;
    // Independent writes, sent together: measured on the real stack, ten parallel messages made each
    // call wait 0.3-0.6 s for the API server, and the cordon is what stops new pods landing.
    await Promise.all([
      this.#o.store.delete(name),
      nodeName === undefined ? undefined : this.#o.nodes.cordonAndTaint(nodeName, disruptedTaint),
    ]);
    for (const target of targets({ nodeClaim, ...(node === undefined ? {} : { node }) })) {
      this.#o.recorder.record(target, 'Normal', 'TerminatingOnInterruption', `Interruption triggered termination for the ${target.kind}`);
    }
    this.#o.onDisrupted?.(nodeClaim, kind);
    this.#o.onDeleted?.(name);
    (this.#o.log ?? silentLogger).info({ component: 'interruption', nodeClaim: name, kind }, 'initiated delete from interruption message');
  }
}

function targets({ nodeClaim, node }: InstanceOwner): EventTarget[] {
  const claimTarget: EventTarget = {
    kind: 'NodeClaim',
    apiVersion: 'karpenter.sh/v1',
    name: nodeClaim.metadata.name ?? '',
    ...(nodeClaim.metadata.uid === undefined ? {} : { uid: nodeClaim.metadata.uid }),
  };
  if (node === undefined) return [claimTarget];
  const nodeTarget: EventTarget = {
    kind: 'Node',
    name: node.metadata.name ?? '',
    ...(node.metadata.uid === undefined ? {} : { uid: node.metadata.uid }),
  };
  return [claimTarget, nodeTarget];
}
