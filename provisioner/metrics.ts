import { Counter, Histogram, type Registry, type Summary } from 'prom-client';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import { parseGoDuration } from '../domain/duration.js';
import { labels } from '../domain/well-known-labels.js';
import { karpenterSummary } from './runtime/metric-shapes.js';

/** Metric names of the lifecycle and GC controllers (Karpenter's names, `nodesmith_` prefix). */
export const lifecycleMetricNames = {
  nodeClaimsDisrupted: 'nodesmith_nodeclaims_disrupted_total',
  nodeClaimsDrifted: 'nodesmith_nodeclaims_drifted_total',
  nodeClaimsUnhealthyDisrupted: 'nodesmith_nodeclaims_unhealthy_disrupted_total',
  nodeClaimsTerminated: 'nodesmith_nodeclaims_terminated_total',
  nodeClaimsRegistered: 'nodesmith_nodeclaims_registered_total',
  nodeClaimsInitialized: 'nodesmith_nodeclaims_initialized_total',
  terminationDuration: 'nodesmith_nodeclaims_termination_duration_seconds',
  instanceTerminationDuration: 'nodesmith_nodeclaims_instance_termination_duration_seconds',
  nodesLifetime: 'nodesmith_nodes_lifetime_duration_seconds',
  nodesTerminated: 'nodesmith_nodes_terminated_total',
  nodesTerminationDuration: 'nodesmith_nodes_termination_duration_seconds',
  nodesDrained: 'nodesmith_nodes_drained_total',
  evictionRequests: 'nodesmith_pods_eviction_requests_total',
  garbageCollected: 'nodesmith_garbage_collected_total',
  garbageCollectionSkipped: 'nodesmith_garbage_collection_skipped_total',
  reconcileErrors: 'nodesmith_controller_reconcile_errors_total',
} as const;

/** Why liveness or GC deleted a NodeClaim (`reason` label). */
export type DisruptionReason = 'launch_timeout' | 'registration_timeout' | 'instance_gone' | 'expired' | 'unhealthy';

/** Karpenter's `termination_mode`: graceful drains, forceful skips the drain, eventual waits for pods to leave. */
export type TerminationMode = 'graceful' | 'eventual' | 'forceful';

const disruptedLabelNames = ['nodepool', 'reason', 'capacity_type', 'consolidation_policy', 'termination_mode'] as const;
type DisruptedLabel = (typeof disruptedLabelNames)[number];

/** Karpenter's DisruptionTerminationMode: graceful without terminationGracePeriod, forceful at 0, else eventual. */
export function terminationModeOf(claim: NodeClaim): TerminationMode {
  const grace = claim.spec.terminationGracePeriod;
  if (grace === undefined) return 'graceful';
  return (parseGoDuration(grace) ?? 1) <= 0 ? 'forceful' : 'eventual';
}

/**
 * The labels of `nodeclaims_disrupted_total` for one claim (Karpenter's set; policy is empty outside
 * consolidation). The mode is the claim's own unless the disruption skips the drain (`forceful`).
 */
export function disruptedLabels(claim: NodeClaim, reason: string, mode: TerminationMode = terminationModeOf(claim)): Record<DisruptedLabel, string> {
  return {
    nodepool: claim.metadata.labels?.[labels.nodePool] ?? '',
    reason,
    capacity_type: claim.metadata.labels?.[labels.capacityType] ?? '',
    consolidation_policy: '',
    termination_mode: mode,
  };
}

/**
 * The instruments the lifecycle and GC controllers emit, on an injected Registry (main.ts owns the
 * process one; each test makes its own). Label values come from closed sets, never pod or claim names.
 */
export class LifecycleMetrics {
  readonly disrupted: Counter<DisruptedLabel>;
  readonly drifted: Counter<'type' | 'nodepool'>;
  readonly unhealthyDisrupted: Counter<'condition' | 'nodepool' | 'capacity_type' | 'image_id'>;
  readonly terminated: Counter<'nodepool' | 'capacity_type' | 'zone'>;
  readonly registered: Counter<'nodepool'>;
  readonly initialized: Counter<'nodepool'>;
  readonly terminationDuration: Histogram<'nodepool'>;
  readonly instanceTerminationDuration: Histogram<'nodepool'>;
  readonly nodesLifetime: Histogram<'nodepool'>;
  readonly nodesTerminated: Counter<'nodepool' | 'zone'>;
  readonly nodesTerminationDuration: Summary<'nodepool'>;
  readonly nodesDrained: Counter<'nodepool'>;
  readonly evictionRequests: Counter<'code'>;
  readonly garbageCollected: Counter<'kind'>;
  readonly garbageCollectionSkipped: Counter<'kind' | 'reason'>;
  readonly reconcileErrors: Counter<'controller'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const n = lifecycleMetricNames;
    this.disrupted = new Counter({ name: n.nodeClaimsDisrupted, help: 'Number of nodeclaims disrupted in total, by reason, nodepool, capacity type, consolidation policy and termination mode.', labelNames: disruptedLabelNames, registers });
    this.drifted = new Counter({ name: n.nodeClaimsDrifted, help: 'NodeClaims that became Drifted, by drift reason (type) and nodepool.', labelNames: ['type', 'nodepool'] as const, registers });
    this.unhealthyDisrupted = new Counter({
      name: n.nodeClaimsUnhealthyDisrupted,
      help: 'Number of unhealthy nodeclaims disrupted in total by node repair, by the node condition that was unhealthy, nodepool, capacity type and image ID.',
      labelNames: ['condition', 'nodepool', 'capacity_type', 'image_id'] as const, registers,
    });
    this.terminated = new Counter({ name: n.nodeClaimsTerminated, help: 'Number of nodeclaims terminated in total (finalizer removed), by nodepool, capacity type and zone.', labelNames: ['nodepool', 'capacity_type', 'zone'] as const, registers });
    this.registered = new Counter({ name: n.nodeClaimsRegistered, help: 'NodeClaims that became Registered.', labelNames: ['nodepool'] as const, registers });
    this.initialized = new Counter({ name: n.nodeClaimsInitialized, help: 'NodeClaims that became Initialized.', labelNames: ['nodepool'] as const, registers });
    this.terminationDuration = new Histogram({
      name: n.terminationDuration,
      help: 'Duration of NodeClaim termination in seconds: from the deletion request to the finalizer removal.',
      labelNames: ['nodepool'] as const,
      // Karpenter's buckets: prometheus.ExponentialBuckets(1, 2, 12).
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],
      registers,
    });
    this.instanceTerminationDuration = new Histogram({
      name: n.instanceTerminationDuration, help: 'Duration of CloudProvider Instance termination in seconds.', labelNames: ['nodepool'] as const,
      // Karpenter's buckets: prometheus.ExponentialBuckets(1, 2, 11).
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], registers,
    });
    this.nodesLifetime = new Histogram({
      name: n.nodesLifetime, help: 'The lifetime duration of the nodes since creation.', labelNames: ['nodepool'] as const,
      // Karpenter's buckets (node/termination/metrics.go): 15 min to 30 days.
      buckets: [...[15, 30, 45].map((m) => m * 60), ...[1, 2, 4, 6, 8, 10, 12, 16, 20].map((h) => h * 3600), ...[1, 2, 3, 5, 10, 15, 20, 25, 30].map((d) => d * 86_400)], registers,
    });
    this.nodesTerminated = new Counter({ name: n.nodesTerminated, help: 'Number of nodes terminated in total, by nodepool and zone.', labelNames: ['nodepool', 'zone'] as const, registers });
    this.nodesTerminationDuration = karpenterSummary(registry, n.nodesTerminationDuration, "The time taken between a node's deletion request and the removal of its finalizer.", ['nodepool']);
    this.nodesDrained = new Counter({ name: n.nodesDrained, help: 'The total number of nodes drained, by nodepool.', labelNames: ['nodepool'] as const, registers });
    this.evictionRequests = new Counter({ name: n.evictionRequests, help: 'Eviction API requests, by outcome (HTTP-like code).', labelNames: ['code'] as const, registers });
    this.garbageCollected = new Counter({ name: n.garbageCollected, help: 'Objects deleted by garbage collection, by kind.', labelNames: ['kind'] as const, registers });
    this.garbageCollectionSkipped = new Counter({
      name: n.garbageCollectionSkipped, labelNames: ['kind', 'reason'] as const, registers,
      help: 'Objects garbage collection would have deleted but kept because it could not attribute them to a lost launch, by kind and reason.',
    });
    this.reconcileErrors = new Counter({ name: n.reconcileErrors, help: 'Controller passes that failed, by controller.', labelNames: ['controller'] as const, registers });
  }
}
