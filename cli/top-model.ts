import { podScheduledCondition } from '../domain/core/pod-scheduled.js';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../domain/api/nodepool-schema.js';
import type { Node } from '../domain/core/node.js';
import type { Pod } from '../domain/core/pod.js';
import { lifetimeRemaining } from '../domain/disruption/eviction-cost.js';
import { launchableLabel } from '../domain/product-keys.js';
import { parseResourceList, type ResourceList } from '../domain/resource-list.js';
import { labels } from '../domain/well-known-labels.js';
import type { Amounts, VirtualNodePlan } from '../provisioner/index.js';

/** What `nodesmith top` reads: the cluster model (provisioner/state's ClusterState satisfies it). */
export interface TopSource {
  readonly isSynced: boolean;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly pods: ReadonlyMap<string, Pod>;
  readonly nodePools: ReadonlyMap<string, NodePool>;
  readonly plans: ReadonlyMap<string, VirtualNodePlan>;
  usage(nodeName: string): Amounts;
  podsOn(nodeName: string): Pod[];
  requestsOf(key: string): Amounts | undefined;
  pendingPods(): Pod[];
  planOfPod(key: string): string | undefined;
  nodeClaimOfNode(nodeName: string): NodeClaim | undefined;
  /** Room best-effort-atomic ProvisioningRequests booked (provisioner/state/capacity-bookings.ts). */
  readonly bookings: { holdersOn(nodeName: string): ReadonlyMap<string, Amounts>; bookedNodes(): ReadonlyMap<string, readonly string[]> };
}

/** A node's state as the model sees it; the disruption states come from NodeClaim conditions and the lifetime left. */
export type NodeState = 'planned' | 'launching' | 'ready' | 'not ready' | 'draining' | 'drifted' | 'expiring' | 'consolidatable';

export interface Use { readonly requested: number; readonly allocatable: number }

export interface TopRow {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly ageMs: number;
  /** Millicores. */
  readonly cpu: Use;
  /** Bytes. */
  readonly memory: Use;
  readonly pods: number;
  readonly pricePerHour: number | undefined;
  readonly state: NodeState;
}

export interface Totals {
  readonly name: string;
  readonly nodes: number;
  readonly planned: number;
  readonly pricePerHour: number;
  readonly cpu: Use;
  readonly memory: Use;
  readonly pendingPods: number;
}

export interface PendingPod { readonly pod: string; readonly nodePool: string; readonly why: string }

/** Room a ProvisioningRequest booked on a node for its pods still to come. */
export interface BookedRoom { readonly node: string; readonly request: string; readonly cpu: number; readonly memory: number; readonly pods: number }

export interface TopView {
  readonly synced: boolean;
  readonly rows: readonly TopRow[];
  readonly pools: readonly Totals[];
  readonly cluster: Totals;
  readonly pending: readonly PendingPod[];
  readonly booked: readonly BookedRoom[];
}

/** $/h of one offering, or undefined when the catalog does not know it. */
export type PriceOf = (instanceType: string, zone: string, capacityType: string) => number | undefined;

/** The fraction of the NodeClaim's lifetime under which it shows as expiring. */
const expiringFraction = 0.1;

const ms = (timestamp: string | undefined): number | undefined => {
  const value = Date.parse(timestamp ?? '');
  return Number.isNaN(value) ? undefined : value;
};
const conditionTrue = (claim: NodeClaim | undefined, type: string): boolean => claim?.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;
const podKey = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;

function allocatable(node: Node): ResourceList {
  try {
    return parseResourceList(node.status?.allocatable);
  } catch {
    return {}; // the API server validated it; an unreadable quantity shows as no capacity
  }
}

const isDraining = (node: Node, claim: NodeClaim | undefined): boolean =>
  node.metadata.deletionTimestamp != null || claim?.metadata.deletionTimestamp != null || node.spec?.taints?.some((t) => t.key === 'karpenter.sh/disrupted') === true;

function isExpiring(claim: NodeClaim | undefined, nowMs: number): boolean {
  const created = ms(claim?.metadata.creationTimestamp ?? undefined);
  return created !== undefined && lifetimeRemaining(created, claim?.spec.expireAfter, nowMs) < expiringFraction;
}

/** The first that holds, in Karpenter's order of precedence: going away, then why disruption would pick it. */
function realState(node: Node, claim: NodeClaim | undefined, nowMs: number): NodeState {
  if (isDraining(node, claim)) return 'draining';
  if (conditionTrue(claim, 'Drifted')) return 'drifted';
  if (isExpiring(claim, nowMs)) return 'expiring';
  if (conditionTrue(claim, 'Consolidatable')) return 'consolidatable';
  if (node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true) return 'ready';
  return claim !== undefined && !conditionTrue(claim, 'Initialized') ? 'launching' : 'not ready';
}

function realRow(source: TopSource, node: Node, priceOf: PriceOf, nowMs: number): TopRow {
  const name = node.metadata.name ?? '';
  const l = node.metadata.labels ?? {};
  const claim = source.nodeClaimOfNode(name);
  const room = allocatable(node);
  const used = source.usage(name);
  const [instanceType, zone, capacityType] = [l[labels.instanceType] ?? '', l[labels.zone] ?? '', l[labels.capacityType] ?? ''];
  return {
    name, nodePool: l[labels.nodePool] ?? '', instanceType, capacityType, zone,
    ageMs: nowMs - (ms(node.metadata.creationTimestamp) ?? nowMs),
    cpu: { requested: used['cpu'] ?? 0, allocatable: room['cpu'] ?? 0 },
    memory: { requested: used['memory'] ?? 0, allocatable: room['memory'] ?? 0 },
    pods: source.podsOn(name).length,
    pricePerHour: priceOf(instanceType, zone, capacityType),
    state: realState(node, claim, nowMs),
  };
}

function assignedRequests(source: TopSource, plan: VirtualNodePlan): { cpu: number; memory: number } {
  const requested = { cpu: 0, memory: 0 };
  for (const key of plan.assignedPods) {
    const r = source.requestsOf(key) ?? {};
    requested.cpu += r['cpu'] ?? 0;
    requested.memory += r['memory'] ?? 0;
  }
  return requested;
}

function plannedRow(source: TopSource, node: Node, plan: VirtualNodePlan, nowMs: number): TopRow {
  const room = allocatable(node);
  const requested = assignedRequests(source, plan);
  const more = plan.instanceTypes.length > 1 ? ` +${String(plan.instanceTypes.length - 1)}` : '';
  return {
    name: plan.nodeName, nodePool: plan.nodePool, instanceType: `${plan.instanceTypes[0] ?? '?'}${more}`,
    capacityType: plan.capacityType ?? 'flexible', zone: plan.zone ?? 'flexible',
    ageMs: nowMs - (ms(node.metadata.creationTimestamp) ?? nowMs),
    cpu: { requested: requested.cpu, allocatable: room['cpu'] ?? 0 },
    memory: { requested: requested.memory, allocatable: room['memory'] ?? 0 },
    pods: plan.assignedPods.length, pricePerHour: plan.pricePerHour, state: 'planned',
  };
}

/**
 * Why a pod waits: the plan holding it, else its PodScheduled condition (the model keeps the reason, e.g.
 * Unschedulable; condition messages are dropped from the model to save memory, and nodesmith's own tally is an Event).
 */
function pendingOf(source: TopSource, pod: Pod): PendingPod {
  const key = podKey(pod);
  const planned = source.planOfPod(key);
  const plan = planned === undefined ? undefined : source.plans.get(planned);
  if (plan !== undefined) return { pod: key, nodePool: plan.nodePool, why: `planned on ${plan.nodeName} (${plan.instanceTypes.join(', ')}), waiting for the launch` };
  const verdict = podScheduledCondition(pod);
  const scheduled = verdict?.status === 'False' ? verdict : undefined;
  const why = scheduled?.message ?? scheduled?.reason ?? 'not scheduled yet';
  return { pod: key, nodePool: pod.spec.nodeSelector?.[labels.nodePool] ?? '', why: why.replace(/\s+/g, ' ') };
}

function totals(name: string, rows: readonly TopRow[], pending: number): Totals {
  const sum = (pick: (r: TopRow) => number): number => rows.reduce((n, r) => n + pick(r), 0);
  const real = rows.filter((r) => r.state !== 'planned');
  return {
    name, nodes: real.length, planned: rows.length - real.length, pricePerHour: sum((r) => r.pricePerHour ?? 0),
    cpu: { requested: real.reduce((n, r) => n + r.cpu.requested, 0), allocatable: real.reduce((n, r) => n + r.cpu.allocatable, 0) },
    memory: { requested: real.reduce((n, r) => n + r.memory.requested, 0), allocatable: real.reduce((n, r) => n + r.memory.allocatable, 0) },
    pendingPods: pending,
  };
}

/**
 * One frame's worth of facts, computed from the model in O(nodes + pods): every real node and every plan not yet
 * launched, the totals per NodePool and for the cluster, and each pending pod with the reason it waits.
 */
export function buildTopView(source: TopSource, priceOf: PriceOf, nowMs: number): TopView {
  const rows: TopRow[] = [];
  for (const node of source.nodes.values()) {
    const name = node.metadata.name ?? '';
    if (node.metadata.labels?.[launchableLabel] === undefined) rows.push(realRow(source, node, priceOf, nowMs));
    else {
      const plan = source.plans.get(name);
      if (plan !== undefined && plan.materializedNode === undefined) rows.push(plannedRow(source, node, plan, nowMs));
    }
  }
  const pending = source.pendingPods().map((p) => pendingOf(source, p));
  const poolNames = new Set([...source.nodePools.keys(), ...rows.map((r) => r.nodePool)]);
  const pools = [...poolNames].sort().map((pool) => totals(pool, rows.filter((r) => r.nodePool === pool), pending.filter((p) => p.nodePool === pool).length));
  return { synced: source.isSynced, rows, pools, cluster: totals('cluster', rows, pending.length), pending, booked: bookedRoom(source) };
}

/** Every node's booked room, request by request, with what is still held there. */
function bookedRoom(source: TopSource): BookedRoom[] {
  const out: BookedRoom[] = [];
  for (const node of [...source.bookings.bookedNodes().keys()].sort()) {
    for (const [request, left] of source.bookings.holdersOn(node)) out.push({ node, request, cpu: left['cpu'] ?? 0, memory: left['memory'] ?? 0, pods: left['pods'] ?? 0 });
  }
  return out;
}
