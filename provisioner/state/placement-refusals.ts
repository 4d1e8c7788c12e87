import type { Exclusion } from '../../domain/placement-refusal.js';

interface Nomination { readonly node: string; readonly atMs: number }
interface Refusal { readonly node: string; readonly exclusions: readonly Exclusion[]; readonly untilMs: number }

/**
 * Where a pass placed each pending pod on an existing node, and the places kube-scheduler refused. The plan and
 * kube-scheduler can disagree (a zone spread counted with pods that are planned but not bound): a pod nominated to
 * a node that is still pending a while later was refused it, and planned there again it would wait for ever, with
 * no new Event. Each refusal holds for a while and then lapses, as the cluster that made it changes.
 */
export class PlacementRefusals {
  readonly #nominated = new Map<string, Nomination>();
  readonly #refused = new Map<string, Refusal[]>();
  /** When the model last saw kube-scheduler write the pod Unschedulable (a new verdict: its message changed). */
  readonly #unschedulableAt = new Map<string, number>();
  /** The plan (its virtual node's name) the extender found with no room left for the pod (noRoomOn). */
  readonly #noRoom = new Map<string, string>();

  sawUnschedulable(podKey: string, atMs: number): void {
    this.#unschedulableAt.set(podKey, atMs);
  }

  /** When kube-scheduler last found no node for the pod, as the model saw it; undefined if never. */
  unschedulableAt(podKey: string): number | undefined {
    return this.#unschedulableAt.get(podKey);
  }

  /** Whether kube-scheduler refused the pod this node (lapsed or not): a plan there no longer holds the pod. */
  refusedNode(podKey: string, node: string): boolean {
    return this.#refused.get(podKey)?.some((r) => r.node === node) === true;
  }

  /**
   * A pass placed the pod on this existing node at `atMs`. Pending pods are planned again every heartbeat, and a
   * pass that places the pod on the same node again keeps the first time: the wait counts from there.
   */
  nominated(podKey: string, node: string, atMs: number): void {
    if (this.#nominated.get(podKey)?.node !== node) this.#nominated.set(podKey, { node, atMs });
  }

  /** The nominated node is gone or closed: the next pass places the pod anew, and nothing was refused. */
  dropNomination(podKey: string): void {
    this.#nominated.delete(podKey);
  }

  /** The pods nominated at or before `beforeMs`, with their node: the candidates for a refusal. */
  *nominatedBefore(beforeMs: number): IterableIterator<readonly [string, string]> {
    for (const [key, nomination] of this.#nominated) if (nomination.atMs <= beforeMs) yield [key, nomination.node];
  }

  /**
   * The extender found no room left for the pod on the node its own plan gave it, named by the plan's virtual node:
   * the room was taken while the pod was on its way elsewhere (a bind kube-scheduler gave up on). Kept until the
   * planner refuses the plan's place and plans the pod again (refused-placements.ts).
   */
  noRoomOn(podKey: string, planNode: string): void {
    this.#noRoom.set(podKey, planNode);
  }

  /** The plan noted by noRoomOn and not yet acted on; undefined when none. */
  noRoomNode(podKey: string): string | undefined {
    return this.#noRoom.get(podKey);
  }

  refuse(podKey: string, node: string, exclusions: readonly Exclusion[], untilMs: number): void {
    this.#nominated.delete(podKey);
    this.#noRoom.delete(podKey);
    this.#refused.set(podKey, [...(this.#refused.get(podKey) ?? []), { node, exclusions, untilMs }]);
  }

  /** What the pod's refusals still rule out at `nowMs` (lapsed ones are dropped). */
  exclusionsOf(podKey: string, nowMs: number): Exclusion[] {
    const refusals = this.#refused.get(podKey);
    if (refusals === undefined) return [];
    const live = refusals.filter((r) => r.untilMs > nowMs);
    if (live.length === 0) this.#refused.delete(podKey);
    else if (live.length !== refusals.length) this.#refused.set(podKey, live);
    return live.flatMap((r) => r.exclusions);
  }

  /** The pod was bound or is gone: nothing about its placement is left to remember. */
  forget(podKey: string): void {
    this.#nominated.delete(podKey);
    this.#refused.delete(podKey);
    this.#unschedulableAt.delete(podKey);
    this.#noRoom.delete(podKey);
  }

  get size(): number {
    return this.#nominated.size + this.#refused.size + this.#unschedulableAt.size + this.#noRoom.size;
  }
}
