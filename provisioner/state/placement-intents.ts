import type { Pod } from '../../domain/core/pod.js';
import type { ResourceList } from '../../domain/resource-list.js';

/**
 * What a recreated pod has in common with the pod a consolidation evicted: the same controller (a ReplicaSet keeps
 * its name while it replaces pods) and the same CPU and memory requests. A pod without a controller is not
 * recreated; its own name stands in.
 */
export function workloadOf(pod: Pod, requests: ResourceList): string {
  const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.controller === true);
  const who = owner === undefined ? `pod/${pod.metadata.name ?? ''}` : `${owner.kind}/${owner.name}`;
  return `${pod.metadata.namespace ?? 'default'}/${who}|${String(requests['cpu'] ?? 0)}|${String(requests['memory'] ?? 0)}`;
}

interface Intent {
  readonly command: string;
  readonly node: string;
  remaining: number;
  readonly untilMs: number;
}

/**
 * Where a consolidation command planned the pods it moves, so that kube-scheduler's placement follows the plan:
 * the extender ranks a planned node first for a pod of the same workload, each place is used up by one bind, and
 * the planner counts a launch for such a pod as unplanned (the plan said it fits without one). Written by the
 * disruption controller when it deletes the candidates; an intent lapses at `untilMs` (swept on each pass).
 */
export class PlacementIntents {
  readonly #byWorkload = new Map<string, Intent[]>();

  /** One place per moved pod: the workload it belongs to and the node the plan put it on. */
  add(command: string, places: readonly { readonly workload: string; readonly node: string }[], untilMs: number): void {
    for (const { workload, node } of places) {
      const intents = this.#byWorkload.get(workload) ?? [];
      const same = intents.find((i) => i.node === node && i.command === command);
      if (same === undefined) intents.push({ command, node, remaining: 1, untilMs });
      else same.remaining++;
      this.#byWorkload.set(workload, intents);
    }
  }

  /** The nodes still planned for a pod of this workload (empty when none). */
  destinations(workload: string): ReadonlySet<string> {
    return new Set((this.#byWorkload.get(workload) ?? []).filter((i) => i.remaining > 0).map((i) => i.node));
  }

  /** A pod of the workload was bound to the node: one place there is taken. */
  placed(workload: string, node: string): void {
    const intents = this.#byWorkload.get(workload);
    const intent = intents?.find((i) => i.node === node && i.remaining > 0);
    if (intents === undefined || intent === undefined) return;
    intent.remaining--;
    const left = intents.filter((i) => i.remaining > 0);
    if (left.length === 0) this.#byWorkload.delete(workload);
    else this.#byWorkload.set(workload, left);
  }

  /** Drops the intents that lapsed, and those on nodes that are gone. */
  sweep(nowMs: number, nodeExists: (name: string) => boolean): void {
    for (const [workload, intents] of this.#byWorkload) {
      const left = intents.filter((i) => i.untilMs > nowMs && nodeExists(i.node));
      if (left.length === 0) this.#byWorkload.delete(workload);
      else this.#byWorkload.set(workload, left);
    }
  }

  /** No place is left to take: every workload whose places are all taken or lapsed is dropped, so this is O(1). */
  get isEmpty(): boolean {
    return this.#byWorkload.size === 0;
  }

  /** Places not yet taken, over every workload. */
  get size(): number {
    let n = 0;
    for (const intents of this.#byWorkload.values()) for (const i of intents) n += i.remaining;
    return n;
  }
}
