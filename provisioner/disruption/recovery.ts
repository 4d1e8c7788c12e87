import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { disruptedTaint } from '../../domain/karpenter-keys.js';
import { findCondition } from '../../domain/api/status-conditions.js';
import type { ClusterState } from '../state/cluster-state.js';
import { clearCondition } from './condition-writer.js';
import { disruptionReasonCondition } from './command-execution.js';
import { hasDisruptedTaint } from './node-status.js';
import type { DisruptionClaimStore } from './ports.js';
import type { NodeWriter } from '../ports/node-writer.js';
import { recordedReplacements, recordReplacements, releaseReplacements, type Released } from './replacement-release.js';

export interface RecoveryDeps {
  readonly state: ClusterState;
  readonly nodes: Pick<NodeWriter, 'addTaint' | 'removeTaint'>;
  readonly store: DisruptionClaimStore;
  /** Whether a command of this process holds the node right now. */
  readonly inCommand: (nodeName: string) => boolean;
}

/** What one sweep undid, for the log and the tests. */
export interface RecoveryResult {
  readonly untainted: readonly string[];
  readonly cleared: readonly string[];
  /** Replacement NodeClaims the abandoned commands had created: deleted (nothing ran there) or kept (pods did). */
  readonly replacements: Released;
}

/**
 * Rolls back what no command holds any more: a managed node tainted `karpenter.sh/disrupted` whose NodeClaim is not
 * deleting, and a `DisruptionReason` on such a NodeClaim. That is what a process killed mid-command leaves behind
 * (the command lived only in its memory), or a rollback whose write failed. The replacements the command recorded
 * on its candidates go the way a rollback's do (`releaseReplacements`: deleted unless pods already run there), so
 * nothing it launched is left to chance; the next pass decides afresh. Nodes without a NodeClaim are not ours and
 * are left alone; deleting NodeClaims belong to termination, which taints them itself.
 */
export async function recoverAbandonedCommands(deps: RecoveryDeps): Promise<RecoveryResult> {
  const untainted: string[] = [];
  for (const [name, node] of deps.state.nodes) {
    if (!hasDisruptedTaint(node) || !isAbandoned(deps, name)) continue;
    await deps.nodes.removeTaint(name, disruptedTaint.key);
    untainted.push(name);
  }
  const cleared: string[] = [];
  const abandoned = new Set(untainted);
  for (const claim of deps.state.nodeClaims.values()) {
    if (!hasAbandonedReason(deps, claim)) continue;
    await clearCondition(deps.store, claim.metadata.name ?? '', disruptionReasonCondition);
    cleared.push(claim.metadata.name ?? '');
    abandoned.add(claim.status?.nodeName ?? '');
  }
  return { untainted, cleared, replacements: await releaseAbandoned(deps, abandoned) };
}

/** The replacements recorded on the abandoned candidates' NodeClaims, released, and the records cleared. */
async function releaseAbandoned(deps: RecoveryDeps, nodeNames: ReadonlySet<string>): Promise<Released> {
  const deleted: string[] = [];
  const kept: string[] = [];
  for (const nodeName of nodeNames) {
    const claim = deps.state.nodeClaimOfNode(nodeName);
    const recorded = recordedReplacements(claim);
    if (claim === undefined || recorded.length === 0) continue;
    const released = await releaseReplacements(deps, recorded);
    deleted.push(...released.deleted);
    kept.push(...released.kept);
    await recordReplacements(deps.store, [claim.metadata.name ?? ''], []);
  }
  return { deleted, kept };
}

function hasAbandonedReason(deps: RecoveryDeps, claim: NodeClaim): boolean {
  if (findCondition(claim, disruptionReasonCondition) === undefined || claim.metadata.deletionTimestamp !== undefined) return false;
  const nodeName = claim.status?.nodeName ?? '';
  return !deps.inCommand(nodeName) && deps.state.marks.disruptionOf(nodeName) === undefined;
}

function isAbandoned(deps: RecoveryDeps, nodeName: string): boolean {
  const claim = deps.state.nodeClaimOfNode(nodeName);
  if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) return false;
  if (deps.state.nodes.get(nodeName)?.metadata.deletionTimestamp !== undefined) return false;
  return !deps.inCommand(nodeName) && deps.state.marks.disruptionOf(nodeName) === undefined && !deps.state.marks.isMarkedDeleting(nodeName);
}
