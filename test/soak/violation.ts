import { unschedulableGraceMs } from '../e2e/pods-left-behind.js';

/** One broken invariant, as the soak prints it and counts it. */
export interface Violation {
  /** Ms since the soak started. */
  readonly atMs: number;
  readonly invariant: string;
  /** The objects involved: pods, nodes, NodeClaims, instances. */
  readonly objects: readonly string[];
  readonly message: string;
}

export function formatViolation(v: Violation): string {
  return `[${(v.atMs / 1000).toFixed(1).padStart(7)}s] VIOLATION ${v.invariant}: ${v.message} (${v.objects.join(', ')})`;
}

/** How long each condition may last before it is a violation: the time the product needs to put it right. */
export interface Graces {
  /** A Deployment short of pods (its replacement needs a launch, perhaps under EC2 faults or a restart). */
  readonly podMissingMs: number;
  /** An instance no NodeClaim holds, or a launched NodeClaim without its instance (the GCs run every 2 min). */
  readonly fleetMs: number;
  /** A node tainted or cordoned while its NodeClaim is not being deleted (a command waiting for replacements). */
  readonly taintMs: number;
  /** More NodeClaims than the pods could use, plus `runawayMargin`. */
  readonly runawayMs: number;
  readonly runawayMargin: number;
  /** A pod kube-scheduler finds no node for while a NodePool could serve it (issue 37: two minutes, a launch and a registration). */
  readonly unschedulableMs: number;
}

export const defaultGraces: Graces = { podMissingMs: 180_000, fleetMs: 200_000, taintMs: 240_000, runawayMs: 120_000, runawayMargin: 3, unschedulableMs: unschedulableGraceMs };

/**
 * Conditions that may hold for a while: each is a violation once it has held, without a break, for longer than its
 * grace. A condition is reported once per episode; it may start again after it ended.
 */
export class Episodes {
  readonly #since = new Map<string, number>();
  readonly #reported = new Set<string>();

  /**
   * Notes which keys hold now; returns those that have held longer than `graceMs` and were not reported yet, with
   * how long. Keys of this family not seen now end their episode. An episode starts when first seen, or at
   * `startedAtMs` when the object itself records when its condition began (a pod condition's lastTransitionTime).
   */
  observe(family: string, holding: readonly string[], at: { readonly nowMs: number; readonly graceMs: number; readonly startedAfterMs?: (key: string) => number; readonly startedAtMs?: (key: string) => number | undefined }): { key: string; forMs: number }[] {
    const { nowMs, graceMs, startedAfterMs = () => 0, startedAtMs = () => undefined } = at;
    const now = new Set(holding.map((k) => `${family}\u0000${k}`));
    for (const key of [...this.#since.keys()].filter((k) => k.startsWith(`${family}\u0000`) && !now.has(k))) {
      this.#since.delete(key);
      this.#reported.delete(key);
    }
    const due: { key: string; forMs: number }[] = [];
    for (const key of holding) {
      const id = `${family}\u0000${key}`;
      const since = Math.max(this.#since.get(id) ?? startedAtMs(key) ?? nowMs, startedAfterMs(key));
      this.#since.set(id, since);
      if (nowMs - since > graceMs && !this.#reported.has(id)) {
        this.#reported.add(id);
        due.push({ key, forMs: nowMs - since });
      }
    }
    return due;
  }
}
