import { Counter, Histogram, type Registry } from 'prom-client';

/** Metric names of the lifecycle and GC controllers (Karpenter's names, `nodesmith_` prefix). */
export const lifecycleMetricNames = {
  nodeClaimsDisrupted: 'nodesmith_nodeclaims_disrupted_total',
  nodeClaimsDrifted: 'nodesmith_nodeclaims_drifted_total',
  nodeClaimsTerminated: 'nodesmith_nodeclaims_terminated_total',
  nodeClaimsRegistered: 'nodesmith_nodeclaims_registered_total',
  nodeClaimsInitialized: 'nodesmith_nodeclaims_initialized_total',
  terminationDuration: 'nodesmith_nodeclaims_termination_duration_seconds',
  evictionRequests: 'nodesmith_pods_eviction_requests_total',
  garbageCollected: 'nodesmith_garbage_collected_total',
  reconcileErrors: 'nodesmith_controller_reconcile_errors_total',
} as const;

/** Why liveness or GC deleted a NodeClaim (`reason` label). */
export type DisruptionReason = 'launch_timeout' | 'registration_timeout' | 'instance_gone' | 'expired';

/**
 * The instruments the lifecycle and GC controllers emit, on an injected Registry (main.ts owns the
 * process one; each test makes its own). Label values come from closed sets, never pod or claim names.
 */
export class LifecycleMetrics {
  readonly disrupted: Counter<'nodepool' | 'reason'>;
  readonly drifted: Counter<'type' | 'nodepool'>;
  readonly terminated: Counter<'nodepool' | 'capacity_type'>;
  readonly registered: Counter<'nodepool'>;
  readonly initialized: Counter<'nodepool'>;
  readonly terminationDuration: Histogram<'nodepool'>;
  readonly evictionRequests: Counter<'code'>;
  readonly garbageCollected: Counter<'kind'>;
  readonly reconcileErrors: Counter<'controller'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const n = lifecycleMetricNames;
    this.disrupted = new Counter({ name: n.nodeClaimsDisrupted, help: 'NodeClaims deleted by a controller, by nodepool and reason.', labelNames: ['nodepool', 'reason'] as const, registers });
    this.drifted = new Counter({ name: n.nodeClaimsDrifted, help: 'NodeClaims that became Drifted, by drift reason (type) and nodepool.', labelNames: ['type', 'nodepool'] as const, registers });
    this.terminated = new Counter({ name: n.nodeClaimsTerminated, help: 'NodeClaims whose termination finished (finalizer removed).', labelNames: ['nodepool', 'capacity_type'] as const, registers });
    this.registered = new Counter({ name: n.nodeClaimsRegistered, help: 'NodeClaims that became Registered.', labelNames: ['nodepool'] as const, registers });
    this.initialized = new Counter({ name: n.nodeClaimsInitialized, help: 'NodeClaims that became Initialized.', labelNames: ['nodepool'] as const, registers });
    this.terminationDuration = new Histogram({
      name: n.terminationDuration,
      help: 'Seconds from a NodeClaim deletion request to its finalizer removal.',
      labelNames: ['nodepool'] as const,
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600],
      registers,
    });
    this.evictionRequests = new Counter({ name: n.evictionRequests, help: 'Eviction API requests, by outcome (HTTP-like code).', labelNames: ['code'] as const, registers });
    this.garbageCollected = new Counter({ name: n.garbageCollected, help: 'Objects deleted by garbage collection, by kind.', labelNames: ['kind'] as const, registers });
    this.reconcileErrors = new Counter({ name: n.reconcileErrors, help: 'Controller passes that failed, by controller.', labelNames: ['controller'] as const, registers });
  }
}
