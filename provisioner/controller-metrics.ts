import { Counter, Histogram, type Registry } from 'prom-client';
import { durationBuckets } from './runtime/metric-shapes.js';

/**
 * controller-runtime's reconcile metrics, under its own names (no namespace, as in every controller-runtime
 * operator), so Karpenter's performance dashboard shows nodesmith's controllers. A pass of a nodesmith controller
 * is one reconcile; `controller` is the controller's "area.concern" name.
 */
export function controllerRuntimeMetrics(registry: Registry): (controller: string, seconds: number, result: 'success' | 'error') => void {
  const registers = [registry];
  const total = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller.', labelNames: ['controller', 'result'] as const, registers });
  const errors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Total number of reconciliation errors per controller.', labelNames: ['controller'] as const, registers });
  const time = new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Length of time per reconciliation per controller.', labelNames: ['controller'] as const, buckets: [...durationBuckets], registers });
  return (controller, seconds, result) => {
    total.inc({ controller, result });
    if (result === 'error') errors.inc({ controller });
    time.observe({ controller }, seconds);
  };
}
