/** Karpenter waits this long before it launches a failed static NodeClaim again; nodesmith alike. */
export const relaunchBackoffMs = 30_000;

/** How long a launched NodeClaim is counted from here while the watch has not delivered it yet. */
const unseenGraceMs = 60_000;

interface Entry {
  readonly pool: string;
  readonly state: 'launching' | 'launched' | 'failed';
  readonly atMs: number;
}

/** A launched entry the model shows (or never will), or a failed one past its backoff, has nothing left to say. */
function isStale(entry: Entry, seen: boolean, nowMs: number): boolean {
  const age = nowMs - entry.atMs;
  if (entry.state === 'launched') return seen || age >= unseenGraceMs;
  return entry.state === 'failed' && age >= relaunchBackoffMs;
}

/**
 * The static NodeClaims this process launches, from the moment a launch is decided until the cluster model shows
 * the NodeClaim (Karpenter's NodePoolState reservation): without it, a pass that runs before the watch delivers a
 * new NodeClaim would launch it again. The static controller and the static drift method share one.
 */
export class StaticLaunches {
  readonly #entries = new Map<string, Entry>();

  start(name: string, pool: string, nowMs: number): void {
    this.#entries.set(name, { pool, state: 'launching', atMs: nowMs });
  }

  succeeded(name: string, nowMs: number): void {
    const entry = this.#entries.get(name);
    if (entry !== undefined) this.#entries.set(name, { ...entry, state: 'launched', atMs: nowMs });
  }

  failed(name: string, nowMs: number): void {
    const entry = this.#entries.get(name);
    if (entry !== undefined) this.#entries.set(name, { ...entry, state: 'failed', atMs: nowMs });
  }

  isLaunching(name: string): boolean {
    return this.#entries.get(name)?.state === 'launching';
  }

  /** Whether a launch of this NodeClaim failed too recently to try again. */
  inBackoff(name: string, nowMs: number): boolean {
    const entry = this.#entries.get(name);
    return entry?.state === 'failed' && nowMs - entry.atMs < relaunchBackoffMs;
  }

  /**
   * The pool's NodeClaims this process is launching, or launched a moment ago, that the model does not show yet.
   * Entries the model shows, and failed or long-unseen ones, are forgotten (a failed launch that left its NodeClaim
   * behind is in the model, and counted from there).
   */
  unseen(pool: string, known: (name: string) => boolean, nowMs: number): string[] {
    const out: string[] = [];
    for (const [name, entry] of this.#entries) {
      if (entry.pool !== pool) continue;
      const seen = known(name);
      if (isStale(entry, seen, nowMs)) this.#entries.delete(name);
      else if (!seen && entry.state !== 'failed') out.push(name);
    }
    return out;
  }
}
