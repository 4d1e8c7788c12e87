import type { Pod } from '../../domain/core/pod.js';
import type { ScaleUpOutcome } from '../../domain/provisioning-requests/atomic-status.js';
import { bookingOf, type Booking } from '../../domain/provisioning-requests/booking.js';
import type { ResourceList } from '../../domain/resource-list.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import type { ReplacementLauncher } from '../ports/replacement-launcher.js';

export interface ScaleUpDeps {
  /** The one launch path (NodeClaim, instance, Node), with plans never published as virtual nodes. */
  readonly launcher: ReplacementLauncher;
  readonly store: Pick<NodeClaimStore, 'get' | 'delete'>;
  /** What the model charges a pod (a `pods` slot included): the booking holds exactly that. */
  readonly requestsFor: (pod: Pod) => ResourceList;
}

/** What a scale-up did: the outcome for the request's conditions, and the booking when it holds room. */
export interface ScaleUp {
  readonly outcome: ScaleUpOutcome;
  readonly booking?: Booking;
  /** The NodeClaims it launched (every one kept), or tried and deleted. */
  readonly nodeClaims: readonly string[];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Deletes each NodeClaim that exists and is not deleting yet (termination releases whatever instance it has). Read
 * from the API server, so one created a moment ago and not yet seen by the watch is found too. Throws when a delete
 * fails: the names stay recorded on the request, and the next pass deletes them again.
 */
export async function releaseNodeClaims(store: ScaleUpDeps['store'], names: readonly string[]): Promise<void> {
  for (const name of names) {
    const claim = await store.get(name);
    if (claim !== undefined && claim.metadata.deletionTimestamp === undefined) await store.delete(name);
  }
}

function bookingFor(plan: SimulationResult, launched: readonly string[], requestsFor: ScaleUpDeps['requestsFor']): Booking {
  const placed = plan.existing.flatMap(({ node, pods }) => pods.map((pod) => ({ node, requests: requestsFor(pod) })));
  for (const [i, claim] of plan.nodeClaims.entries()) for (const pod of claim.pods) placed.push({ node: launched[i] ?? '', requests: requestsFor(pod) });
  return bookingOf(placed);
}

/**
 * Cluster Autoscaler's best-effort-atomic scale-up on a plan of all the request's pods (capacity-snapshot.ts `plan`):
 * nothing is launched unless every pod has a place; then every new NodeClaim is launched at once, each named before
 * (`record` writes the names on the request first, so a leader that dies in the middle leaves them findable), and if
 * any launch fails, every NodeClaim of the scale-up is deleted, launched or not, so nothing is left half-made.
 */
export async function scaleUp(deps: ScaleUpDeps, plan: SimulationResult, record: (nodeClaims: readonly string[]) => Promise<void>): Promise<ScaleUp> {
  const existing = plan.existing.reduce((n, e) => n + e.pods.length, 0);
  const pods = existing + plan.nodeClaims.reduce((n, c) => n + c.pods.length, 0) + plan.unschedulable.length;
  const first = plan.unschedulable[0];
  if (first !== undefined) {
    const why = `${first.pod.metadata.name ?? ''}: ${first.reason}`.slice(0, 2_000);
    return { outcome: { kind: 'no-capacity', pods, placed: pods - plan.unschedulable.length, why }, nodeClaims: [] };
  }
  if (plan.nodeClaims.length === 0) return { outcome: { kind: 'fits', pods }, booking: bookingFor(plan, [], deps.requestsFor), nodeClaims: [] };
  const names = plan.nodeClaims.map((claim) => deps.launcher.nameFor(claim));
  await record(names);
  const launches = await Promise.allSettled(plan.nodeClaims.map((claim, i) => deps.launcher.launch({ ...claim, name: names[i] ?? '' }, names[i] ?? '')));
  const failures = launches.flatMap((l) => (l.status === 'rejected' ? [messageOf(l.reason)] : []));
  if (failures.length > 0) {
    await releaseNodeClaims(deps.store, names);
    const why = `${String(failures.length)} of ${String(names.length)} launches failed; the first: ${failures[0] ?? ''}`.slice(0, 2_000);
    return { outcome: { kind: 'rolled-back', pods, nodes: names.length, why }, nodeClaims: names };
  }
  const nodes = launches.map((l) => (l.status === 'fulfilled' ? l.value.nodeName : ''));
  return { outcome: { kind: 'provisioned', pods, nodes: names.length, existing }, booking: bookingFor(plan, nodes, deps.requestsFor), nodeClaims: names };
}
