import { Counter, Histogram, type Registry } from 'prom-client';

export const metricsPrefix = 'nodesmith_';

export type Verb = 'filter' | 'prioritize' | 'bind';
/** ok: answered; error: answered with Error set (bind failed); bad_request: 4xx; internal_error: 5xx. */
export type Outcome = 'ok' | 'error' | 'bad_request' | 'internal_error';

/** A bind handed to the leader: bound, refused by the leader (its Error passed on), or no answer from it. */
export type ForwardOutcome = 'bound' | 'refused' | 'unanswered';

export interface ExtenderMetrics {
  observe(verb: Verb, outcome: Outcome, seconds: number): void;
  forwarded(outcome: ForwardOutcome): void;
}

/** Registers the extender's metrics on the injected registry (never prom-client's global one). */
export function createExtenderMetrics(registry: Registry): ExtenderMetrics {
  const labelNames = ['verb', 'outcome'] as const;
  const duration = new Histogram({
    name: `${metricsPrefix}extender_request_duration_seconds`,
    help: 'Time to answer one kube-scheduler extender call, by verb and outcome (bind includes any launch).',
    labelNames,
    // Sub-millisecond for filter/prioritize, up to a minute for a bind that waits for a launch.
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5, 15, 30, 60],
    registers: [registry],
  });
  const requests = new Counter({
    name: `${metricsPrefix}extender_requests_total`,
    help: 'kube-scheduler extender calls, by verb and outcome.',
    labelNames,
    registers: [registry],
  });
  const forwards = new Counter({
    name: `${metricsPrefix}extender_binds_forwarded_total`,
    help: 'Binds this replica handed to the leader, which alone binds, by outcome: bound, refused (the leader\'s Error passed on), unanswered.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    observe(verb, outcome, seconds) {
      duration.observe({ verb, outcome }, seconds);
      requests.inc({ verb, outcome });
    },
    forwarded(outcome) {
      forwards.inc({ outcome });
    },
  };
}

export function outcomeOfStatus(statusCode: number): Outcome | undefined {
  if (statusCode >= 500) return 'internal_error';
  if (statusCode >= 400) return 'bad_request';
  return undefined;
}
