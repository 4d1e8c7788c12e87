import { Summary, type Metric, type Registry } from 'prom-client';

/**
 * Karpenter's default duration buckets (pkg/metrics/constants.go DurationBuckets: controller-runtime's, plus
 * values past 60 s for passes without a timeout), so a dashboard's histogram_quantile reads the same resolution.
 */
export const durationBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600,
];

/**
 * A Summary shaped like Karpenter's (SummaryObjectives: quantiles 0, 0.5, 0.9, 0.99 and 1 over client_golang's
 * default 10-minute window of 5 age buckets). STYLE.md prefers histograms, but Karpenter publishes
 * pods_startup_duration_seconds and nodes_termination_duration_seconds as Summaries and its performance dashboard
 * reads their `quantile` label, so these two keep Karpenter's type (DECISIONS.md).
 */
export function karpenterSummary<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Summary<L> {
  return new Summary({ name, help, labelNames, percentiles: [0, 0.5, 0.9, 0.99, 1], maxAgeSeconds: 600, ageBuckets: 5, registers: [registry] });
}

/**
 * The metric of this name already on the registry, or a new one: two providers on one registry (or one built
 * again) share their instruments instead of failing on a duplicate registration.
 */
export function sharedMetric<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
