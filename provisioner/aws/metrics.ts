import { Counter, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { errorLabel } from '../../domain/cloud/errors.js';

export const cloudProviderDurationMetric = 'nodesmith_cloudprovider_duration_seconds';
export const cloudProviderErrorsMetric = 'nodesmith_cloudprovider_errors_total';

export type CloudProviderMethod = 'create' | 'delete' | 'get' | 'list' | 'getInstanceTypes';

export interface CloudProviderMetricsOptions {
  /** Injected so tests and main.ts own their registries (no process-wide default). */
  readonly registry: Registry;
  readonly clock: Clock;
}

interface Instruments {
  readonly duration: Histogram<'method'>;
  readonly errors: Counter<'method' | 'error'>;
}

// Two decorators on one registry (e.g. two providers) share the instruments instead of
// failing on a duplicate registration.
function instruments(registry: Registry): Instruments {
  const duration =
    (registry.getSingleMetric(cloudProviderDurationMetric) as Histogram<'method'> | undefined) ??
    new Histogram({
      name: cloudProviderDurationMetric,
      help: 'Duration of cloud provider calls in seconds, by method.',
      labelNames: ['method'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  const errors =
    (registry.getSingleMetric(cloudProviderErrorsMetric) as
      Counter<'method' | 'error'> | undefined) ??
    new Counter({
      name: cloudProviderErrorsMetric,
      help: 'Cloud provider calls that failed, by method and domain error code.',
      labelNames: ['method', 'error'] as const,
      registers: [registry],
    });
  return { duration, errors };
}

/**
 * Wraps any CloudProvider once (Karpenter's cloudprovider/metrics decorator): each method's
 * duration, and its failures labelled with the domain error code, never the raw message.
 */
export function withCloudProviderMetrics(
  inner: CloudProvider,
  options: CloudProviderMetricsOptions,
): CloudProvider {
  const { duration, errors } = instruments(options.registry);
  const measure = async <T>(method: CloudProviderMethod, call: () => Promise<T>): Promise<T> => {
    const start = options.clock.now();
    try {
      return await call();
    } catch (e: unknown) {
      errors.inc({ method, error: errorLabel(e) });
      throw e;
    } finally {
      duration.observe({ method }, (options.clock.now() - start) / 1000);
    }
  };
  return {
    name: inner.name,
    create: (request) => measure('create', () => inner.create(request)),
    delete: (providerID) => measure('delete', () => inner.delete(providerID)),
    get: (providerID) => measure('get', () => inner.get(providerID)),
    list: () => measure('list', () => inner.list()),
    getInstanceTypes: () => measure('getInstanceTypes', () => inner.getInstanceTypes()),
  };
}
