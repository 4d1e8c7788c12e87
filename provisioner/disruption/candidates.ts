import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import { candidacy, type CandidateNodeFacts, type DisruptionClass, type IgnoredAnnotation } from '../../domain/disruption/candidate.js';
import { disruptionCost, lifetimeRemaining, rescheduleDisruptionCost } from '../../domain/disruption/eviction-cost.js';
import { candidatePodFacts, isDrainedPod, isReschedulablePod } from '../../domain/disruption/pod-facts.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { findCondition, timestampMs, transitionTimeMs } from '../../domain/api/status-conditions.js';
import { driftedCondition } from '../lifecycle/drift.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { Candidate } from './candidate.js';
import { isDeleting, isDisrupting, isInstanceTerminating, nodeOfClaim } from './node-status.js';


export interface CandidateScanOptions {
  readonly disruptionClass: DisruptionClass;
  readonly nowMs: number;
  readonly priceOf: PriceOf;
  /** Gives the event loop back after every `every` NodeClaims (a scan of thousands of nodes takes tens of ms). */
  readonly pace?: { readonly pause: () => Promise<void>; readonly every: number };
}

/** A managed node that may not be disrupted now, and the exact reason, for a deduplicated Event. */
export interface BlockedNode {
  readonly nodeName: string;
  readonly nodeClaim: NodeClaim;
  readonly reason: string;
}

export interface CandidateScan {
  readonly candidates: readonly Candidate[];
  readonly blocked: readonly BlockedNode[];
  /** do-not-disrupt annotations that mean nothing, with the NodeClaim they were found under. */
  readonly ignored: readonly { readonly nodeClaim: NodeClaim; readonly annotation: IgnoredAnnotation }[];
}

function nodeOf(state: ClusterState, claim: NodeClaim): Node | undefined {
  const byName = nodeOfClaim(state, claim);
  if (byName !== undefined) return byName;
  const providerId = claim.status?.providerID;
  if (providerId === undefined) return undefined;
  return [...state.nodes.values()].find((n) => n.spec?.providerID === providerId);
}

function podFacts(state: ClusterState, nodeName: string): CandidateNodeFacts['pods'] {
  // The PDB lookup only matters for pods the drain would evict.
  return state.podsOn(nodeName).map((pod) => candidatePodFacts(pod, isDrainedPod(pod) ? state.pdbs.evictionBlock(pod) : undefined));
}

/**
 * The node was launched for a plan whose pods are still pending: they are on their way to it, so it counts as
 * nominated for them (Karpenter's provisioner nominates the in-flight node it schedules pending pods onto).
 */
function awaitsLaunchedPods(state: ClusterState, name: string): boolean {
  const entry = state.node(name);
  const launch = entry === undefined ? undefined : state.materializationOf(entry);
  if (launch === undefined) return false;
  for (const key of launch[1].assigned) if (state.isPending(key)) return true;
  return false;
}

function isNominated(state: ClusterState, name: string, nowMs: number): boolean {
  return state.marks.nominatedPods(name, nowMs).size > 0 || awaitsLaunchedPods(state, name);
}

/** The requests whose booked room the node holds (capacity-bookings.ts), as the candidate rules read them. */
function bookedFor(state: ClusterState, name: string): { bookedFor?: string[] } {
  const holders = state.bookings.isEmpty ? [] : [...state.bookings.holdersOn(name).keys()];
  return holders.length === 0 ? {} : { bookedFor: holders.sort() };
}

function nodeFacts(state: ClusterState, claim: NodeClaim, node: Node | undefined, nowMs: number): CandidateNodeFacts {
  const name = node?.metadata.name ?? claim.status?.nodeName ?? claim.metadata.name ?? '';
  const common = {
    name,
    managed: true,
    nominated: isNominated(state, name, nowMs),
    ...bookedFor(state, name),
    ...(claim.spec.terminationGracePeriod === undefined ? {} : { terminationGracePeriod: claim.spec.terminationGracePeriod }),
  };
  if (node === undefined) {
    return { ...common, hasNode: false, initialized: false, deleting: false, inCommand: state.marks.disruptionOf(name) !== undefined, labels: {}, annotations: {}, pods: [] };
  }
  return {
    ...common,
    hasNode: true,
    initialized: node.metadata.labels?.[wellKnown.initialized] === 'true',
    deleting: isDeleting(state, claim, node) || isInstanceTerminating(claim),
    inCommand: isDisrupting(state, node),
    labels: node.metadata.labels ?? {},
    annotations: node.metadata.annotations ?? {},
    pods: podFacts(state, name),
  };
}

const costFacts = (pod: Pod): { annotations?: Readonly<Record<string, string>>; priority?: number } => ({
  ...(pod.metadata.annotations === undefined ? {} : { annotations: pod.metadata.annotations }),
  ...(pod.spec.priority === undefined ? {} : { priority: pod.spec.priority }),
});

interface CandidateParts {
  readonly claim: NodeClaim;
  readonly node: Node;
  readonly nodePoolName: string;
  readonly overriddenBlock: string | undefined;
}

function toCandidate(state: ClusterState, parts: CandidateParts, options: CandidateScanOptions): Candidate | undefined {
  const { claim, node, nodePoolName } = parts;
  const nodePool = state.nodePools.get(nodePoolName);
  if (nodePool === undefined) return undefined;
  const nodeName = node.metadata.name ?? '';
  const pods = state.podsOn(nodeName);
  const reschedulablePods = pods.filter(isReschedulablePod);
  const nodeLabels = node.metadata.labels ?? {};
  const instanceType = nodeLabels[wellKnown.instanceType];
  const zone = nodeLabels[wellKnown.zone];
  const capacityType = nodeLabels[wellKnown.capacityType];
  const pricePerHour = instanceType === undefined ? 0 : options.priceOf(instanceType, zone, capacityType);
  const created = timestampMs(claim.metadata.creationTimestamp) ?? options.nowMs;
  const drifted = findCondition(claim, driftedCondition);
  const driftedSinceMs = drifted?.status === 'True' ? transitionTimeMs(drifted) : undefined;
  return {
    nodeName, node, nodeClaim: claim, nodePool, nodePoolName, pods, reschedulablePods, instanceType, capacityType, zone, pricePerHour,
    order: {
      name: nodeName,
      price: pricePerHour,
      rescheduleCost: rescheduleDisruptionCost(reschedulablePods.map(costFacts)),
      disruptionCost: disruptionCost(pods.map(costFacts), lifetimeRemaining(created, claim.spec.expireAfter, options.nowMs)),
      reschedulablePods: reschedulablePods.length,
      ...(driftedSinceMs === undefined ? {} : { driftedSinceMs }),
    },
    ...(parts.overriddenBlock === undefined ? {} : { overriddenBlock: parts.overriddenBlock }),
  };
}

/**
 * Every managed node as Karpenter's `GetCandidates` sees it for one disruption class: the candidates, and the nodes
 * held back with the exact sentence why. Reads only the cluster model. Nodes nodesmith does not manage (no
 * NodeClaim) are not mentioned at all. With `pace`, the scan gives the event loop back as it goes.
 */
export async function scanCandidates(state: ClusterState, options: CandidateScanOptions): Promise<CandidateScan> {
  const scan: ScanSoFar = { candidates: [], blocked: [], ignored: [] };
  const nodePools = new Set(state.nodePools.keys());
  let n = 0;
  for (const name of [...state.nodeClaims.keys()]) {
    if (options.pace !== undefined && ++n % options.pace.every === 0) await options.pace.pause();
    // Read as it is reached: a NodeClaim deleted meanwhile is simply not a candidate any more.
    const claim = state.nodeClaims.get(name);
    if (claim !== undefined) scanOne(state, claim, { ...options, nodePools }, scan);
  }
  return scan;
}

interface ScanSoFar {
  readonly candidates: Candidate[];
  readonly blocked: BlockedNode[];
  readonly ignored: { nodeClaim: NodeClaim; annotation: IgnoredAnnotation }[];
}

function scanOne(state: ClusterState, claim: NodeClaim, options: CandidateScanOptions & { readonly nodePools: ReadonlySet<string> }, scan: ScanSoFar): void {
  const node = nodeOf(state, claim);
  const verdict = candidacy(nodeFacts(state, claim, node, options.nowMs), { disruptionClass: options.disruptionClass, nowMs: options.nowMs, nodePools: options.nodePools });
  for (const annotation of verdict.ignored) scan.ignored.push({ nodeClaim: claim, annotation });
  const nodeName = node?.metadata.name ?? claim.status?.nodeName ?? '';
  if (!verdict.candidate || node === undefined) {
    scan.blocked.push({ nodeName, nodeClaim: claim, reason: verdict.candidate ? 'nodeclaim has no node yet' : verdict.reason });
    return;
  }
  const candidate = toCandidate(state, { claim, node, nodePoolName: verdict.nodePool, overriddenBlock: verdict.overriddenBlock }, options);
  if (candidate !== undefined) scan.candidates.push(candidate);
}
