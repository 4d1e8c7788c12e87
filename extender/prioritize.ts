import type { Pod } from '../domain/core/pod.js';
import type { ClusterModel, ModelNode, ModelPlan } from '../provisioner/index.js';
import { podKey } from '../domain/core/object-key.js';
import { readPodSteering, type PodSteering } from '../domain/pod-steering.js';
import type { ResourceList } from '../domain/resource-list.js';

/** kube-scheduler's extender/v1 HostPriority. */
export interface HostPriority {
  readonly Host: string;
  readonly Score: number;
}

/** extenderv1.MaxExtenderPriority: kube-scheduler rescales 0–10 to its 0–100 node score. */
export const maxExtenderScore = 10;

/*
 * Score bands keep every real node above every virtual one, whatever the steering bonuses:
 *   real    5 + packing (0–3) + capacity-type match (1) + preferred NodePool (1)  → 5–10
 *   real    a consolidation planned this pod's workload there                      → 10
 *   virtual price rank (0–2) + capacity-type match (1) + preferred NodePool (1)   → 0–4
 *   virtual the plan assigned this pod to                                         → 4
 */
const realBase = 5;
const packingSpan = 3;
const priceSpan = 2;
const virtualTop = 4;

interface ScoreContext {
  readonly view: ClusterModel;
  readonly key: string;
  readonly steering: PodSteering;
  readonly requests: ResourceList;
  /** Real nodes a consolidation command planned for this pod's workload: they rank first. */
  readonly planned: ReadonlySet<string>;
}

/**
 * Ranks the nodes kube-scheduler kept after filtering. Real nodes are packed (most allocated first) so that
 * whole nodes stay free for consolidation; virtual nodes go cheapest per pod first.
 */
export function prioritizeNodes(view: ClusterModel, pod: Pod, requests: ResourceList, nodeNames: readonly string[]): HostPriority[] {
  const context: ScoreContext = {
    view, requests, key: podKey(pod.metadata.namespace ?? '', pod.metadata.name ?? ''), steering: readPodSteering(pod),
    planned: view.plannedPlacement(pod),
  };
  const scores: HostPriority[] = [];
  const virtual: VirtualSlot[] = [];
  for (const name of nodeNames) {
    const entry = view.node(name);
    if (entry?.isVirtual === true) {
      const plan = view.plan(name);
      virtual.push({ index: scores.length, entry, plan, perPod: plan === undefined ? Infinity : pricePerPod(plan, context.key) });
    }
    scores.push({ Host: name, Score: entry === undefined || entry.isVirtual ? 0 : scoreReal(context, entry) });
  }
  scoreVirtualSlots(context, virtual, scores);
  return scores;
}

/** Virtual nodes are ranked against each other by price per pod, so they are scored after the first pass. */
function scoreVirtualSlots(context: ScoreContext, virtual: readonly VirtualSlot[], scores: HostPriority[]): void {
  let cheapest = Infinity;
  let dearest = -Infinity;
  for (const { perPod } of virtual) {
    if (!Number.isFinite(perPod)) continue;
    cheapest = Math.min(cheapest, perPod);
    dearest = Math.max(dearest, perPod);
  }
  for (const { index, entry, plan, perPod } of virtual) {
    const Score = scoreVirtual(context, { entry, plan, priceRank: priceRank(perPod, cheapest, dearest) });
    scores[index] = { Host: scores[index]?.Host ?? '', Score };
  }
}

interface VirtualSlot {
  readonly index: number;
  readonly entry: ModelNode;
  readonly plan: ModelPlan | undefined;
  readonly perPod: number;
}

function steeringBonus(steering: PodSteering, capacityType: string | undefined, nodePool: string | undefined): number {
  let bonus = 0;
  if (steering.capacityTypePreference !== undefined && steering.capacityTypePreference === capacityType) bonus += 1;
  if (steering.preferredNodePool !== undefined && steering.preferredNodePool === nodePool) bonus += 1;
  return bonus;
}

/**
 * How full the node would be with this pod: the mean of its cpu and memory fractions, 0–1. Binds in flight count
 * as allocated (the entry's free room already holds them), so two pods scored at once see each other.
 */
function allocatedFraction(context: ScoreContext, entry: ModelNode): number {
  const cpu = fraction(entry.allocatable['cpu'], entry.free['cpu'], context.requests['cpu']);
  const memory = fraction(entry.allocatable['memory'], entry.free['memory'], context.requests['memory']);
  return (cpu + memory) / 2;
}

function fraction(allocatable: number | undefined, free: number | undefined, requested: number | undefined): number {
  if (allocatable === undefined || allocatable <= 0) return 1;
  return Math.min(1, (allocatable - (free ?? allocatable) + (requested ?? 0)) / allocatable);
}

function scoreReal(context: ScoreContext, entry: ModelNode): number {
  // Placement follows the plan: a pod a consolidation moved goes where the simulation put it, not merely where it fits.
  if (context.planned.has(entry.name)) return maxExtenderScore;
  const packing = Math.round(packingSpan * allocatedFraction(context, entry));
  return Math.min(maxExtenderScore, realBase + packing + steeringBonus(context.steering, entry.capacityType, entry.nodePool));
}

/** The launch's hourly price shared by the pods it would carry, this one included. */
function pricePerPod(plan: ModelPlan, key: string): number {
  const pods = plan.assigned.size + (plan.assigned.has(key) ? 0 : 1);
  return plan.plan.pricePerHour / pods;
}

/** 0 for the dearest candidate, priceSpan for the cheapest, linear between. */
function priceRank(perPod: number, cheapest: number, dearest: number): number {
  if (!Number.isFinite(perPod)) return 0;
  if (dearest <= cheapest) return priceSpan;
  return Math.round((priceSpan * (dearest - perPod)) / (dearest - cheapest));
}

interface VirtualCandidate {
  readonly entry: ModelNode;
  readonly plan: ModelPlan | undefined;
  readonly priceRank: number;
}

function scoreVirtual(context: ScoreContext, candidate: VirtualCandidate): number {
  const { entry, plan } = candidate;
  if (plan === undefined) return 0;
  // The plan already weighed price and steering when it placed the pod; its choice wins among virtual nodes.
  if (plan.assigned.has(context.key)) return virtualTop;
  const capacityType = plan.plan.capacityType ?? entry.capacityType;
  const bonus = steeringBonus(context.steering, capacityType, plan.plan.nodePool);
  return Math.min(virtualTop, candidate.priceRank + bonus);
}
