import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Karpenter's disruption metric names (`nodesmith_` prefix; `--metrics-namespace karpenter` serves Karpenter's). */
export const disruptionMetricNames = {
  decisions: 'nodesmith_voluntary_disruption_decisions_total',
  decisionsByNodePool: 'nodesmith_voluntary_disruption_decisions_by_nodepool_total',
  eligibleNodes: 'nodesmith_voluntary_disruption_eligible_nodes',
  allowedDisruptions: 'nodesmith_nodepools_allowed_disruptions',
  queueFailures: 'nodesmith_voluntary_disruption_queue_failures_total',
  failedValidations: 'nodesmith_voluntary_disruption_failed_validations_total',
  evaluationDuration: 'nodesmith_voluntary_disruption_decision_evaluation_duration_seconds',
  commandsInFlight: 'nodesmith_voluntary_disruption_commands_in_flight',
} as const;

type DecisionLabel = 'decision' | 'reason' | 'consolidation_type';

/**
 * The disruption controller's instruments on an injected Registry. Label values are Karpenter's: `reason` is the
 * lower-cased disruption reason (`empty`, `drifted`, `underutilized`), `decision` is `delete` or `replace`,
 * `consolidation_type` is `empty`, `single`, `multi` or empty for drift.
 */
export class DisruptionMetrics {
  readonly decisions: Counter<DecisionLabel>;
  /** The same decisions once per NodePool of the command's candidates (the dashboards group decisions by NodePool). */
  readonly decisionsByNodePool: Counter<DecisionLabel | 'nodepool'>;
  readonly eligibleNodes: Gauge<'reason'>;
  readonly allowedDisruptions: Gauge<'nodepool' | 'reason'>;
  readonly queueFailures: Counter<DecisionLabel>;
  readonly failedValidations: Counter<'reason' | 'consolidation_type'>;
  readonly evaluationDuration: Histogram<'method' | 'consolidation_type'>;
  readonly commandsInFlight: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    const n = disruptionMetricNames;
    const decisionLabels = ['decision', 'reason', 'consolidation_type'] as const;
    this.decisions = new Counter({ name: n.decisions, help: 'Number of disruption decisions performed, by decision, reason and consolidation type.', labelNames: decisionLabels, registers });
    this.decisionsByNodePool = new Counter({ name: n.decisionsByNodePool, help: 'Number of disruption decisions performed by nodepool, by NodePool name, decision, reason and consolidation type.', labelNames: ['nodepool', ...decisionLabels], registers });
    this.eligibleNodes = new Gauge({ name: n.eligibleNodes, help: 'Number of nodes eligible for disruption, by reason.', labelNames: ['reason'] as const, registers });
    this.allowedDisruptions = new Gauge({ name: n.allowedDisruptions, help: 'The number of nodes of a NodePool that may be disrupted at a time for a reason, by the budgets.', labelNames: ['nodepool', 'reason'] as const, registers });
    this.queueFailures = new Counter({ name: n.queueFailures, help: 'Number of disruption commands that failed while executing and were rolled back.', labelNames: decisionLabels, registers });
    this.failedValidations = new Counter({ name: n.failedValidations, help: 'Number of disruption commands that no longer held when re-validated, by reason and consolidation type.', labelNames: ['reason', 'consolidation_type'] as const, registers });
    this.evaluationDuration = new Histogram({
      name: n.evaluationDuration,
      help: 'Duration of one disruption method\'s evaluation (candidates, budgets and commands) in seconds.',
      labelNames: ['method', 'consolidation_type'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.commandsInFlight = new Gauge({ name: n.commandsInFlight, help: 'Disruption commands started and not yet finished or rolled back.', registers });
  }
}
