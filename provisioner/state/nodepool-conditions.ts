import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { withCondition, type Condition, type ConditionUpdate } from '../../domain/api/status-conditions.js';
import type { ClusterState } from './cluster-state.js';

// The conditions are a read of the cluster model: the readiness controller writes them, and static/ checks the
// same types before it makes claims for a pool, so they live on the ground floor (issue 36) rather than in provisioning/.
/** Karpenter's NodePool condition types that make up Ready (operatorpkg status conditions). */
export const nodePoolConditionTypes = { validationSucceeded: 'ValidationSucceeded', nodeClassReady: 'NodeClassReady', ready: 'Ready' } as const;

/**
 * The NodeClassReady condition, as Karpenter sets it: its EC2NodeClass exists, is not being deleted, and is Ready=True.
 * A class whose status is not written yet is not ready: its NodePool used to read Ready while the planner still left
 * it out for want of an instance profile, and the first pods of a burst on it were refused with "no NodePool matches".
 */
function nodeClassReady(state: ClusterState, pool: NodePool): ConditionUpdate {
  const name = pool.spec.template.spec.nodeClassRef.name;
  const nodeClass = state.nodeClasses.get(name);
  if (nodeClass === undefined) return { type: nodePoolConditionTypes.nodeClassReady, status: 'False', reason: 'NodeClassNotFound', message: `EC2NodeClass ${name} not found` };
  if (nodeClass.metadata.deletionTimestamp != null) return { type: nodePoolConditionTypes.nodeClassReady, status: 'False', reason: 'NodeClassTerminating', message: `EC2NodeClass ${name} is being deleted` };
  const failing = nodeClass.status?.conditions?.find((c) => c.status === 'False');
  if (failing !== undefined) return { type: nodePoolConditionTypes.nodeClassReady, status: 'False', reason: 'NodeClassNotReady', message: `EC2NodeClass ${name}: ${failing.type} is False: ${failing.message}`.trim() };
  if (nodeClass.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') !== true) {
    return { type: nodePoolConditionTypes.nodeClassReady, status: 'False', reason: 'NodeClassReadinessUnknown', message: `EC2NodeClass ${name} is not resolved yet (its Ready condition is not True)` };
  }
  return { type: nodePoolConditionTypes.nodeClassReady, status: 'True', reason: 'NodeClassReady' };
}

/** The conditions a NodePool should carry now; lastTransitionTime moves only when a status changes. */
export function nodePoolConditions(state: ClusterState, pool: NodePool, nowMs: number): Condition[] {
  // The validating webhook refuses an invalid NodePool, so one that exists has passed validation.
  const validation: ConditionUpdate = { type: nodePoolConditionTypes.validationSucceeded, status: 'True', reason: 'ValidationSucceeded' };
  const nodeClass = nodeClassReady(state, pool);
  const ready: ConditionUpdate = nodeClass.status === 'True'
    ? { type: nodePoolConditionTypes.ready, status: 'True', reason: 'Ready' }
    : { type: nodePoolConditionTypes.ready, status: 'False', reason: 'NodeClassReadyFalse', message: nodeClass.message ?? '' };
  let conditions: Condition[] = [...(pool.status?.conditions ?? [])];
  for (const update of [validation, nodeClass, ready]) conditions = withCondition(conditions, update, nowMs);
  return conditions;
}
