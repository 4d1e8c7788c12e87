import { Counter, Histogram, type Registry } from 'prom-client';

export const metricPrefix = 'nodesmith_';

/** Webhook metrics on an injected Registry (never prom-client's global one). Labels: webhook = processor id. */
export class WebhookMetrics {
  readonly registry: Registry;
  private readonly admissions: Counter<'webhook' | 'allowed'>;
  private readonly duration: Histogram<'webhook'>;
  private readonly errors: Counter<'webhook' | 'error'>;

  constructor(registry: Registry) {
    this.registry = registry;
    this.admissions = new Counter({
      name: `${metricPrefix}webhook_admission_total`,
      help: 'Admission reviews answered, by webhook and whether the request was allowed.',
      labelNames: ['webhook', 'allowed'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: `${metricPrefix}webhook_request_duration_seconds`,
      help: 'Time to answer one admission review, by webhook.',
      labelNames: ['webhook'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    this.errors = new Counter({
      name: `${metricPrefix}webhook_errors_total`,
      help: 'Admission reviews that failed inside the webhook (bad envelope or internal error).',
      labelNames: ['webhook', 'error'],
      registers: [registry],
    });
  }

  observe(webhook: string, allowed: boolean, seconds: number): void {
    this.admissions.inc({ webhook, allowed: String(allowed) });
    this.duration.observe({ webhook }, seconds);
  }

  error(webhook: string, error: 'bad_request' | 'internal'): void {
    this.errors.inc({ webhook, error });
  }
}
