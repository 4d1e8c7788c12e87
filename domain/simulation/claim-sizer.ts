import { ClassCosts } from './class-costs.js';
import type { NodePoolView } from './nodepool-view.js';
import type { DemandClass, Holder, PendingDemand } from './pending-demand.js';
import type { TypeTable } from './type-table.js';

/** A claim about to open: its first pod's class, its NodePool and the offerings it may use. */
export interface Opening {
  readonly podClass: number;
  readonly pool: NodePoolView;
  readonly offerMask: number;
}

/** The size chosen for a new claim: the price it may grow to and how many pods of each class it expects. */
export interface ClaimPlan {
  readonly budget: number;
  readonly expected: Int32Array;
}

/**
 * Sizes new NodeClaims. Each candidate type is filled, on paper, with the unreserved pending pods in queue order
 * (first fit by class, as the solver fills claims) and scored by its price ÷ the standalone cost of what it
 * holds (class-costs.ts). The best score sets the price the claim may grow to and the pods it reserves, so a
 * claim starts on the size where its pods are cheapest and a big node is chosen only when pods that need one,
 * or that complement each other, will fill it.
 */
export class ClaimSizer {
  private readonly costs: ClassCosts;
  private readonly candidates = new WeakMap<Int32Array, Int32Array>();
  /** The last plan per candidate list and first-pod class: reused while the pods it expects are unreserved. */
  private readonly plans = new WeakMap<Int32Array, Map<number, ClaimPlan>>();

  constructor(private readonly demand: PendingDemand<Holder>, private readonly table: TypeTable) {
    this.costs = new ClassCosts(demand.classes, table);
  }

  /** The options a new claim starts from (a cheapest-first prefix of `types`) and the pods it expects. */
  size(types: Int32Array, opening: Opening): { types: Int32Array; plan: ClaimPlan } {
    let candidates = this.candidates.get(types);
    if (candidates === undefined) {
      candidates = cheapestBySize(types, opening.pool);
      this.candidates.set(types, candidates);
    }
    const plans = this.plans.get(candidates) ?? new Map<number, ClaimPlan>();
    this.plans.set(candidates, plans);
    let plan = plans.get(opening.podClass);
    if (plan === undefined || !this.stillPending(plan)) {
      plan = this.plan(candidates, opening);
      plans.set(opening.podClass, plan);
    }
    let end = 0;
    while (end < types.length && this.table.cheapest(types[end] ?? 0, opening.offerMask) <= plan.budget) end++;
    return { types: types.subarray(0, Math.max(end, 1)), plan };
  }

  private stillPending(plan: ClaimPlan): boolean {
    return plan.expected.every((n, c) => {
      const k = this.demand.classes[c];
      return k !== undefined && n <= k.count - k.reserved;
    });
  }

  private plan(candidates: Int32Array, opening: Opening): ClaimPlan {
    const classCosts = this.costs.forPool(opening.pool);
    const own = classCosts[opening.podClass] ?? 0;
    let bestScore = Infinity;
    let best: ClaimPlan = { budget: Infinity, expected: new Int32Array(this.demand.classes.length) };
    let trial = new Int32Array(this.demand.classes.length);
    for (const i of candidates) {
      const price = this.table.cheapest(i, opening.offerMask);
      const value = own + this.fill(i, opening, classCosts, trial);
      const score = value > 0 ? price / value : Infinity;
      if (score < bestScore || (score === bestScore && price < best.budget)) {
        bestScore = score;
        best = { budget: price, expected: trial };
        trial = new Int32Array(this.demand.classes.length);
      } else trial.fill(0);
    }
    return best;
  }

  /** First fit by class of the unreserved pending pods into one node of type i after the first pod. */
  private fill(i: number, opening: Opening, classCosts: Float64Array, expected: Int32Array): number {
    const room = roomAfter(opening.pool, i, this.demand.classes[opening.podClass]);
    let value = 0;
    const classes = this.demand.classes;
    for (let c = 0; c < classes.length && room.pods > 0; c++) {
      const k = classes[c];
      const n = k === undefined ? 0 : howMany(k, room);
      if (n <= 0 || k === undefined) continue;
      expected[c] = n;
      value += n * (classCosts[c] ?? 0);
      room.cpu -= n * k.cpu;
      room.memory -= n * k.memory;
      room.pods -= n;
    }
    return value;
  }
}

/** The room one node of type i has left once its first pod is in. */
function roomAfter(pool: NodePoolView, i: number, first: DemandClass | undefined): { cpu: number; memory: number; pods: number } {
  return { cpu: (pool.availCpu[i] ?? 0) - (first?.cpu ?? 0), memory: (pool.availMemory[i] ?? 0) - (first?.memory ?? 0), pods: (pool.availPods[i] ?? 0) - 1 };
}

/** How many unreserved pods of a class fit in the room. */
function howMany(k: DemandClass, room: { cpu: number; memory: number; pods: number }): number {
  if (k.cpu > room.cpu || k.memory > room.memory) return 0;
  const byCpu = k.cpu > 0 ? Math.floor(room.cpu / k.cpu) : Infinity;
  const byMemory = k.memory > 0 ? Math.floor(room.memory / k.memory) : Infinity;
  return Math.min(k.count - k.reserved, room.pods, byCpu, byMemory);
}

/**
 * The types worth scoring: cheapest first, each kept unless a type no dearer has at least its CPU, memory and
 * pod slots (that one holds whatever it would hold, for no more).
 */
export function cheapestBySize(types: Int32Array, pool: NodePoolView): Int32Array {
  const kept: number[] = [];
  for (const i of types) {
    const cpu = pool.availCpu[i] ?? 0;
    const memory = pool.availMemory[i] ?? 0;
    const pods = pool.availPods[i] ?? 0;
    if (!kept.some((j) => (pool.availCpu[j] ?? 0) >= cpu && (pool.availMemory[j] ?? 0) >= memory && (pool.availPods[j] ?? 0) >= pods)) kept.push(i);
  }
  return Int32Array.from(kept);
}
