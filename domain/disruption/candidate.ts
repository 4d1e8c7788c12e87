import { doNotDisruptKey } from '../karpenter-keys.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { podDoNotDisrupt } from './do-not-disrupt.js';

/**
 * Graceful disruption (emptiness, consolidation, drift without a terminationGracePeriod) respects pod-level blocks;
 * eventual disruption (drift of a NodeClaim with a terminationGracePeriod) is bounded by that period, so it ignores them.
 */
export type DisruptionClass = 'graceful' | 'eventual';

/** One pod on the node, as the controller reads it from the cluster model. */
export interface CandidatePodFacts {
  /** "namespace/name", as it appears in messages. */
  readonly key: string;
  readonly annotations?: Readonly<Record<string, string>>;
  /** `status.startTime`; a do-not-disrupt duration counts from it. */
  readonly startTimeMs?: number;
  /** Succeeded, Failed or being deleted: it is going anyway and blocks nothing. */
  readonly leaving: boolean;
  /** The drain would evict it (not a mirror pod, does not tolerate karpenter.sh/disrupted); only those meet PDBs. */
  readonly evictable: boolean;
  /** `state.pdbs.evictionBlock(pod)`: why the Eviction API would refuse it now, if it would. */
  readonly evictionBlock?: string;
}

/** One node and its NodeClaim, as the controller reads them from the cluster model. */
export interface CandidateNodeFacts {
  readonly name: string;
  /** It has a NodeClaim (Karpenter's "managed"). */
  readonly managed: boolean;
  readonly hasNode: boolean;
  /** Labelled karpenter.sh/initialized=true. */
  readonly initialized: boolean;
  /** Deleting (deletionTimestamp, InstanceTerminating) or marked deleting in the model. */
  readonly deleting: boolean;
  /** Already part of a disruption command in flight. */
  readonly inCommand: boolean;
  /** A recent plan nominated it for pending pods. */
  readonly nominated: boolean;
  /** The ProvisioningRequests ("namespace/name") whose booked room it holds for pods still to come. */
  readonly bookedFor?: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The NodeClaim's `spec.terminationGracePeriod`. */
  readonly terminationGracePeriod?: string;
  readonly pods: readonly CandidatePodFacts[];
}

export interface CandidateContext {
  readonly disruptionClass: DisruptionClass;
  readonly nowMs: number;
  /** The NodePools that exist now. */
  readonly nodePools: ReadonlySet<string>;
}

/** A do-not-disrupt annotation that was ignored because its value means nothing; the controller raises an Event. */
export interface IgnoredAnnotation {
  /** "pod shop/cart-0" or "node ip-10-0-0-1". */
  readonly object: string;
  readonly problem: string;
}

export type Candidacy =
  | {
      readonly candidate: true;
      readonly nodePool: string;
      /** An eventual disruption went ahead over this pod-level block; the drain waits on it up to the grace period. */
      readonly overriddenBlock?: string;
      readonly ignored: readonly IgnoredAnnotation[];
    }
  | { readonly candidate: false; readonly reason: string; readonly ignored: readonly IgnoredAnnotation[] };

/** The first node-level reason it cannot be a candidate, in Karpenter's order (`ValidateNodeDisruptable`). */
function nodeBlock(node: CandidateNodeFacts, nodePools: ReadonlySet<string>): string | undefined {
  if (node.inCommand) return 'node is already being disrupted';
  if (!node.managed) return 'node is not managed by a NodeClaim';
  if (!node.hasNode) return 'nodeclaim has no node yet';
  if (!node.initialized) return 'node is not initialized';
  if (node.deleting) return 'node is deleting or marked for deletion';
  if (node.nominated) return 'node is nominated for pending pods';
  // As Cluster Autoscaler injects a booked request's pods into its scale-down simulation: the room stays until they come.
  if (node.bookedFor !== undefined && node.bookedFor.length > 0) return `node holds capacity booked for ProvisioningRequest ${node.bookedFor.join(', ')}`;
  if (node.annotations[doNotDisruptKey] === 'true') return `node has ${doNotDisruptKey}`;
  const nodePool = node.labels[wellKnown.nodePool];
  if (nodePool === undefined) return `node has no ${wellKnown.nodePool} label`;
  if (!nodePools.has(nodePool)) return `NodePool ${nodePool} not found`;
  return undefined;
}

function nodeAnnotationIgnored(node: CandidateNodeFacts): IgnoredAnnotation[] {
  const value = node.annotations[doNotDisruptKey];
  if (value === undefined || value === 'true') return [];
  return [{ object: `node ${node.name}`, problem: `${doNotDisruptKey}="${value}" on a node means nothing; only "true" blocks` }];
}

function untilWords(until: number | undefined): string {
  return until === undefined ? '' : ` until ${new Date(until).toISOString()}`;
}

/** The first pod-level block (do-not-disrupt first, then PDBs, as Karpenter checks), and every ignored annotation. */
function podBlock(pods: readonly CandidatePodFacts[], nowMs: number): { block?: string; ignored: IgnoredAnnotation[] } {
  const ignored: IgnoredAnnotation[] = [];
  let block: string | undefined;
  for (const pod of pods) {
    if (pod.leaving) continue;
    const verdict = podDoNotDisrupt(pod.annotations, pod.startTimeMs, nowMs);
    if (verdict.kind === 'invalid') ignored.push({ object: `pod ${pod.key}`, problem: verdict.problem });
    if (verdict.kind === 'blocks') block ??= `pod ${pod.key} has ${doNotDisruptKey}${untilWords(verdict.until)}`;
  }
  block ??= pods.find((pod) => !pod.leaving && pod.evictable && pod.evictionBlock !== undefined)?.evictionBlock;
  return block === undefined ? { ignored } : { block, ignored };
}

/**
 * Karpenter's `NewCandidate`: whether a node may be disrupted now, or the exact reason it may not, in words that go
 * into an Event on the NodeClaim and the Node ("pod shop/cart-0 has karpenter.sh/do-not-disrupt",
 * "PDB shop/cart allows 0 evictions").
 */
export function candidacy(node: CandidateNodeFacts, context: CandidateContext): Candidacy {
  const nodeIgnored = nodeAnnotationIgnored(node);
  const blocked = nodeBlock(node, context.nodePools);
  if (blocked !== undefined) return { candidate: false, reason: blocked, ignored: nodeIgnored };
  const nodePool = node.labels[wellKnown.nodePool] ?? '';
  const pods = podBlock(node.pods, context.nowMs);
  const ignored = [...nodeIgnored, ...pods.ignored];
  if (pods.block === undefined) return { candidate: true, nodePool, ignored };
  const eventual = context.disruptionClass === 'eventual' && node.terminationGracePeriod !== undefined;
  if (eventual) return { candidate: true, nodePool, overriddenBlock: pods.block, ignored };
  return { candidate: false, reason: pods.block, ignored };
}
