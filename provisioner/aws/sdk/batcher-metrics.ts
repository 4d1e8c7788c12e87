import { Histogram, type Registry } from 'prom-client';
import { durationBuckets, sharedMetric } from '../../runtime/metric-shapes.js';
import type { BatchRecord } from './ec2-call-batcher.js';

/** Karpenter's `batcher` label values (aws provider, pkg/batcher). */
export type BatcherName = 'describe_instances' | 'terminate_instances';

const sizeBuckets = [1, 2, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 150, 200, 250, 300, 350, 400, 450, 500, 1000];

/**
 * Karpenter's `cloudprovider_batcher_batch_time_seconds` (how long a batch's window was open) and
 * `cloudprovider_batcher_batch_size` (items per batch), by batcher. Returns what each batcher reports to.
 */
export function batcherMetrics(registry: Registry): (batcher: BatcherName, record: BatchRecord) => void {
  const histogram = (name: string, help: string, buckets: readonly number[]): Histogram<'batcher'> =>
    sharedMetric(registry, name, () => new Histogram({ name, help, labelNames: ['batcher'] as const, buckets: [...buckets], registers: [registry] }));
  const time = histogram('nodesmith_cloudprovider_batcher_batch_time_seconds', 'Duration of the batching window per batcher.', durationBuckets);
  const size = histogram('nodesmith_cloudprovider_batcher_batch_size', 'Size of the request batch per batcher.', sizeBuckets);
  return (batcher, record) => {
    time.observe({ batcher }, record.windowMs / 1000);
    size.observe({ batcher }, record.size);
  };
}
