import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { EC2NodeClassStatus } from '../../domain/api/ec2nodeclass-status-schema.js';
import { capacityBlockExpiryMs, reservationState, type CapacityReservation, type CapacityReservationSource } from '../../domain/cloud/capacity-reservation.js';
import type { ReservationAvailability } from '../../domain/cloud/reservation-availability.js';
import { compareStrings } from '../../domain/compare.js';
import { type ReconcileResult } from '../runtime/controller-runner.js';
import { withCondition, type Condition } from '../../domain/api/status-conditions.js';
import type { NodeClassWriter } from '../ports/nodeclass-writer.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** Karpenter's condition for this step of EC2NodeClass readiness (counted in Ready while ReservedCapacity is on). */
export const capacityReservationsReady = 'CapacityReservationsReady';

/** Karpenter polls reservations every minute (and sooner when one ends or a capacity block starts expiring). */
export const capacityReservationPeriodMs = 60_000;

type StatusReservation = NonNullable<EC2NodeClassStatus['capacityReservations']>[number];

export interface CapacityReservationControllerOptions extends ControllerOptions {
  readonly view: { readonly nodeClasses: ReadonlyMap<string, EC2NodeClass> };
  readonly source: CapacityReservationSource;
  readonly availability: ReservationAvailability;
  readonly writer: NodeClassWriter;
}

/**
 * Discovers the capacity reservations each EC2NodeClass selects and writes them to status.capacityReservations,
 * as Karpenter's nodeclass capacityreservation reconciler does; keeps their free counts (ReservationAvailability)
 * and the list itself in memory for the planner and the launch, which must not wait for the status round trip.
 */
export class CapacityReservationController extends OptionsController<CapacityReservationControllerOptions> {
  readonly name = 'nodeclass.capacityreservation';
  readonly #byClass = new Map<string, readonly CapacityReservation[]>();

  /** The reservations a class selected at the last discovery, by id. */
  reservationsOf(nodeClassName: string): readonly CapacityReservation[] {
    return this.#byClass.get(nodeClassName) ?? [];
  }

  async reconcile(): Promise<ReconcileResult> {
    let next = capacityReservationPeriodMs;
    for (const nodeClass of [...this.options.view.nodeClasses.values()]) {
      if (nodeClass.metadata.deletionTimestamp !== undefined) continue;
      try {
        next = Math.min(next, await this.#reconcileOne(nodeClass));
      } catch (e: unknown) {
        this.log.warn({ component: this.name, nodeClass: nodeClass.metadata.name, err: e }, 'discovering capacity reservations failed');
      }
    }
    return { requeueAfterMs: next };
  }

  async #reconcileOne(nodeClass: EC2NodeClass): Promise<number> {
    const name = nodeClass.metadata.name ?? '';
    const terms = nodeClass.spec.capacityReservationSelectorTerms ?? [];
    const found = terms.length === 0 ? [] : await this.options.source.list(terms);
    const sorted = [...found].sort((a, b) => compareStrings(a.id, b.id));
    this.options.availability.sync(new Map(sorted.map((r) => [r.id, r.availableInstanceCount])));
    this.#byClass.set(name, sorted);
    const now = this.options.clock.now();
    const status = sorted.map((r) => statusOf(r, now));
    const current = nodeClass.status?.capacityReservations ?? [];
    const listChanged = JSON.stringify(current) !== JSON.stringify(status);
    const conditions = readyConditions(nodeClass, now);
    if (listChanged || conditions !== undefined) await this.options.writer.patchStatus(name, { capacityReservations: status, ...(conditions === undefined ? {} : { conditions }) });
    if (listChanged) this.log.info({ component: this.name, nodeClass: name, ids: sorted.map((r) => r.id) }, 'discovered capacity reservations');
    return requeueAfter(sorted, now);
  }
}

/**
 * The conditions with CapacityReservationsReady True, or undefined when it already is: a discovery that answered is
 * the condition's True, with or without reservations, and one that failed threw before this and leaves the condition
 * as it was, as Karpenter's reconciler does.
 */
function readyConditions(nodeClass: EC2NodeClass, now: number): Condition[] | undefined {
  const ready = nodeClass.status?.conditions?.find((c) => c.type === capacityReservationsReady);
  if (ready?.status === 'True' && ready.reason === capacityReservationsReady) return undefined;
  return withCondition(nodeClass.status?.conditions ?? [], { type: capacityReservationsReady, status: 'True', reason: capacityReservationsReady }, now);
}

/** One status.capacityReservations item, with Karpenter's fields and defaults. */
export function statusOf(r: CapacityReservation, now: number): StatusReservation {
  return {
    availabilityZone: r.availabilityZone,
    ...(r.endTime === undefined ? {} : { endTime: new Date(r.endTime).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
    id: r.id,
    instanceMatchCriteria: r.instanceMatchCriteria,
    instanceType: r.instanceType,
    ownerID: r.ownerID,
    reservationType: r.type,
    interruptible: r.interruptible,
    state: reservationState(r, now),
  };
}

/** The next minute, or sooner: when a reservation ends or a capacity block turns expiring. */
function requeueAfter(reservations: readonly CapacityReservation[], now: number): number {
  let next = capacityReservationPeriodMs;
  for (const r of reservations) {
    if (r.endTime === undefined) continue;
    const moments = r.type === 'capacity-block' ? [r.endTime - capacityBlockExpiryMs, r.endTime] : [r.endTime];
    for (const at of moments) if (at > now) next = Math.min(next, at - now);
  }
  return Math.max(next, 1000);
}
