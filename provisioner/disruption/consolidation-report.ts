import type { ConsolidationMethod } from './consolidation-method.js';
import { consolidationDryRun, type ConsolidationDryRun, type DryRunDeps } from './consolidation-dry-run.js';

/** What a running controller says about consolidation: now, and in its own last passes. */
export interface ConsolidationReport {
  /** Only the leader runs the methods; another replica answers from the same model but has no passes of its own. */
  readonly leader: boolean;
  /** The dry run on this process's cluster model, marks of commands in flight included. */
  readonly now: ConsolidationDryRun;
  /** The last pass of each method in this process. */
  readonly lastPasses: readonly LastPass[];
}

export interface LastPass {
  readonly method: 'multi-node' | 'single-node';
  readonly command: string | null;
  readonly simulations: number;
  readonly timedOut: boolean;
  readonly skipped: string | null;
  readonly refused: number;
}

function lastPass(m: ConsolidationMethod): LastPass {
  const method = m.consolidationType === 'multi' ? 'multi-node' : 'single-node';
  const last = m.last;
  if (last === undefined) return { method, command: null, simulations: 0, timedOut: false, skipped: null, refused: 0 };
  return { method, command: last.command?.explanation ?? null, simulations: last.simulations, timedOut: last.timedOut, skipped: last.skipped ?? null, refused: last.notConsolidated.length };
}

export interface ReportDeps extends DryRunDeps {
  readonly isLeader: () => boolean;
  readonly methods: readonly ConsolidationMethod[];
}

/**
 * The debug endpoint's answer (`GET /debug/consolidation` on the health server), computed on demand. Explaining
 * every candidate costs one simulation each; like the methods, the dry run yields between simulations and stops at
 * their pass budgets (1 min multi-node, 3 min single-node). Concurrent requests share one computation, so a burst
 * of requests costs one dry run.
 */
export function consolidationReport(deps: ReportDeps): () => Promise<ConsolidationReport> {
  let running: Promise<ConsolidationReport> | undefined;
  const compute = async (): Promise<ConsolidationReport> => ({
    leader: deps.isLeader(),
    now: await consolidationDryRun(deps),
    lastPasses: deps.methods.map(lastPass),
  });
  return () => {
    running ??= compute().finally(() => { running = undefined; });
    return running;
  };
}
