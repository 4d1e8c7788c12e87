/** One answered probe: ms after the start at which it was sent, and how long the answer took. */
export interface ProbeSample {
  readonly sentAtMs: number;
  readonly latencyMs: number;
}

/**
 * The slowest answer to the probes sent in each `stepS`-second step, up to the step of the last one: "2s 3ms,
 * 4s 2210ms, 6s -, …". Probes go one at a time, so "-" means the step saw no probe start: the one before it was still
 * waiting. A long answer with dashes after it is the process not answering at all (its event loop held, or no CPU).
 */
export function latencyCurve(samples: readonly ProbeSample[], stepS = 2): string {
  if (samples.length === 0) return 'no probe answered';
  const last = Math.max(...samples.map((s) => s.sentAtMs));
  const steps: string[] = [];
  for (let end = stepS * 1000; ; end += stepS * 1000) {
    const inStep = samples.filter((s) => s.sentAtMs >= end - stepS * 1000 && s.sentAtMs < end);
    steps.push(`${String(end / 1000)}s ${inStep.length === 0 ? '-' : `${Math.max(...inStep.map((s) => s.latencyMs)).toFixed(0)}ms`}`);
    if (end > last) break;
  }
  return steps.join(', ');
}

export interface LatencyProbe {
  readonly samples: readonly ProbeSample[];
  stop(): Promise<void>;
}

/**
 * Asks `url` (a route that does no work, e.g. /healthz) again `everyMs` after each answer, timing each answer. On
 * nodesmith's own process this tells whether its event loop answers during a burst, where the extender's log alone
 * cannot tell a held loop from kube-scheduler sending nothing.
 */
export function probeLatency(url: string, startedMs: number, everyMs = 100): LatencyProbe {
  const samples: ProbeSample[] = [];
  let stopped = false;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const sent = Date.now();
      try {
        await (await fetch(url)).arrayBuffer();
        samples.push({ sentAtMs: sent - startedMs, latencyMs: Date.now() - sent });
      } catch {
        // A refused or reset probe is no answer: the step shows "-".
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  };
  const running = loop();
  return { samples, stop: async () => { stopped = true; await running; } };
}
