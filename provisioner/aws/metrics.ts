import { Counter, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider } from '../../domain/cloud/cloud-provider.js';
import { errorLabel } from '../../domain/cloud/errors.js';
import { durationBuckets, sharedMetric } from '../runtime/metric-shapes.js';

export const cloudProviderDurationMetric = 'nodesmith_cloudprovider_duration_seconds';
export const cloudProviderErrorsMetric = 'nodesmith_cloudprovider_errors_total';

/** Karpenter's `method` label values (its decorator's method names). */
export type CloudProviderMethod = 'Create' | 'Delete' | 'Get' | 'List' | 'GetInstanceTypes';

type Labels = 'controller' | 'method' | 'provider';

export interface CloudProviderMetricsOptions {
  /** Injected so tests and main.ts own their registries (no process-wide default). */
  readonly registry: Registry;
  readonly clock: Clock;
  /** The `controller` label: which controller's calls these are (Karpenter takes it from the context). */
  readonly controller?: string;
}

interface Instruments {
  readonly duration: Histogram<Labels>;
  readonly errors: Counter<Labels | 'error'>;
}

/**
 * Karpenter's `error` label: the well-known CloudProvider error types by their Go names, and "" for anything
 * else. nodesmith's other domain errors (throttling, create errors) keep their code with the same suffix.
 */
export function karpenterErrorLabel(e: unknown): string {
  const code = errorLabel(e);
  if (code === 'Unknown') return '';
  return code.endsWith('Error') ? code : `${code}Error`;
}

function instruments(registry: Registry): Instruments {
  const duration = sharedMetric(registry, cloudProviderDurationMetric, () => new Histogram({
    name: cloudProviderDurationMetric,
    help: 'Duration of cloud provider method calls. Labeled by the controller, method name and provider.',
    labelNames: ['controller', 'method', 'provider'] as const,
    buckets: [...durationBuckets],
    registers: [registry],
  }));
  const errors = sharedMetric(registry, cloudProviderErrorsMetric, () => new Counter({
    name: cloudProviderErrorsMetric,
    help: 'Total number of errors returned from CloudProvider calls, by controller, method, provider and error type.',
    labelNames: ['controller', 'method', 'provider', 'error'] as const,
    registers: [registry],
  }));
  return { duration, errors };
}

/**
 * Wraps any CloudProvider (Karpenter's cloudprovider/metrics decorator, same names and labels): each method's
 * duration, and its failures labelled with the error type, never the raw message. One wrapper per controller.
 */
export function withCloudProviderMetrics(
  inner: CloudProvider,
  options: CloudProviderMetricsOptions,
): CloudProvider {
  const { duration, errors } = instruments(options.registry);
  const measure = async <T>(method: CloudProviderMethod, call: () => Promise<T>): Promise<T> => {
    const labels = { controller: options.controller ?? '', method, provider: inner.name };
    const start = options.clock.now();
    try {
      return await call();
    } catch (e: unknown) {
      errors.inc({ ...labels, error: karpenterErrorLabel(e) });
      throw e;
    } finally {
      duration.observe(labels, (options.clock.now() - start) / 1000);
    }
  };
  return {
    name: inner.name,
    create: (request) => measure('Create', () => inner.create(request)),
    delete: (providerID) => measure('Delete', () => inner.delete(providerID)),
    get: (providerID) => measure('Get', () => inner.get(providerID)),
    list: () => measure('List', () => inner.list()),
    getInstanceTypes: () => measure('GetInstanceTypes', () => inner.getInstanceTypes()),
    // A constant list, not a cloud call: nothing to time.
    repairPolicies: () => inner.repairPolicies(),
  };
}
