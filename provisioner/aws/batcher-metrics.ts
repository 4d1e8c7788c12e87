import { Histogram, type Registry } from 'prom-client';
import { durationBuckets } from '../metric-shapes.js';
import type { BatchRecord } from './batcher.js';

/** Karpenter's `batcher` label values (aws provider, pkg/batcher). */
export type BatcherName = 'describe_instances' | 'terminate_instances';

const sizeBuckets = [1, 2, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 150, 200, 250, 300, 350, 400, 450, 500, 1000];

/**
 * Karpenter's `cloudprovider_batcher_batch_time_seconds` (how long a batch's window was open) and
 * `cloudprovider_batcher_batch_size` (items per batch), by batcher. Returns what each batcher reports to.
 */
export function batcherMetrics(registry: Registry): (batcher: BatcherName, record: BatchRecord) => void {
  const time = (registry.getSingleMetric('nodesmith_cloudprovider_batcher_batch_time_seconds') as Histogram<'batcher'> | undefined) ?? new Histogram({
    name: 'nodesmith_cloudprovider_batcher_batch_time_seconds', help: 'Duration of the batching window per batcher.',
    labelNames: ['batcher'] as const, buckets: [...durationBuckets], registers: [registry],
  });
  const size = (registry.getSingleMetric('nodesmith_cloudprovider_batcher_batch_size') as Histogram<'batcher'> | undefined) ?? new Histogram({
    name: 'nodesmith_cloudprovider_batcher_batch_size', help: 'Size of the request batch per batcher.',
    labelNames: ['batcher'] as const, buckets: sizeBuckets, registers: [registry],
  });
  return (batcher, record) => {
    time.observe({ batcher }, record.windowMs / 1000);
    size.observe({ batcher }, record.size);
  };
}
