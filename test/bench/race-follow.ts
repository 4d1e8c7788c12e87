// How the race follows a burst, for a side and for its floor alike: until every pod is Running, sampling the
// invariants that must stay 0 as it goes.
import type * as k8s from '@kubernetes/client-node';
import { livePods } from './cluster-watch.js';
import type { RaceInvariants } from './race-invariants.js';
import { stageTimes, type PodTrace, type StageWatch } from './stage-watch.js';

/** What following a burst needs of the run's options. */
export interface FollowOptions {
  readonly total: number;
  readonly timeoutS: number;
  readonly write: (text: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Sampler { maybe(): Promise<void> }

/** The cluster a run polls, and the invariants it samples as it does. */
export interface Followed { readonly world: { readonly core: k8s.CoreV1Api }; readonly sampling: Sampler }

/** Samples the invariants every 10 s at most: three lists of every pod would weigh on the API server at 10,000 pods. */
export function sampler(invariants: RaceInvariants): Sampler {
  let lastMs = 0;
  return {
    async maybe(): Promise<void> {
      if (Date.now() - lastMs < 10_000) return;
      lastMs = Date.now();
      await invariants.sample();
    },
  };
}

/**
 * Follows the burst until every pod is Running; the ms until the last one was first seen Running, or NaN after the
 * timeout. Counted from the watch: a list of every pod each 2 s, for both controllers alike, was load on the API server
 * the race measures, and its answer came seconds late at 1,000 pods. One list confirms the end (no extra pod).
 */
export async function untilRunning({ world, sampling }: Followed, binds: StageWatch, started: number, options: FollowOptions): Promise<number> {
  const { total } = options;
  const seen = (pick: (p: PodTrace) => number | undefined): number[] => stageTimes(binds, pick);
  let printed = 0;
  while (Date.now() - started < options.timeoutS * 1000) {
    await sampling.maybe();
    const running = seen((p) => p.runningMs);
    if (Date.now() - printed >= 2_000) {
      printed = Date.now();
      options.write(`    t=${((Date.now() - started) / 1000).toFixed(0)}s pods ${String(binds.pods.size)} bound ${String(seen((p) => p.boundMs).length)} running ${String(running.length)}/${String(total)}\n`);
    }
    if (running.length >= total) {
      const pods = await livePods(world.core);
      if (pods.length === total && pods.every((p) => p.status?.phase === 'Running' && p.spec?.nodeName)) return Math.max(...running) - started;
    }
    await sleep(250);
  }
  return Number.NaN;
}
