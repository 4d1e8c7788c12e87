import { ClassCosts } from './class-costs.js';
import type { NodePoolView } from './nodepool-view.js';
import { balancedFill, firstFitByClass, type FillClass, type FillDemand, type Room } from './paper-fill.js';
import type { Holder, PendingDemand } from './pending-demand.js';
import type { TypeTable } from './type-table.js';

/**
 * The most pods a balanced fill plans for besides the first. A plan for dozens of pods from many classes seldom
 * comes true (pods with topology constraints, or whose zone the claim no longer offers, go elsewhere), and on a
 * node that big first fit by class mixes kinds anyway; unbounded, the balanced fill made \`hpc7g.16xlarge\` win in
 * the diverse 2,000 and end at 74-82% of one resource (cost ÷ fit bound 1.155 rather than 1.096). 16 to 24 give
 * the same generic figures.
 */
const balancedPods = 24;

/** A claim about to open: its first pod's class, its NodePool, the offerings it may use and its zone, if decided. */
export interface Opening {
  readonly podClass: number;
  readonly pool: NodePoolView;
  readonly offerMask: number;
  readonly zone: string | undefined;
}

/** The size chosen for a new claim: the price it may grow to and how many pods of each class it expects. */
export interface ClaimPlan {
  readonly budget: number;
  readonly expected: Int32Array;
}

/**
 * Sizes new NodeClaims. Each candidate type is filled, on paper, with the unreserved pending pods twice (first fit
 * by class in queue order, as the solver fills claims, and a fill that mixes CPU- and memory-heavy pods; see
 * paper-fill.ts) and scored by its price ÷ the standalone cost of what the better fill holds (class-costs.ts). The best score sets the price the claim may grow to and the pods it reserves, so a
 * claim starts on the size where its pods are cheapest and a big node is chosen only when pods that need one,
 * or that complement each other, will fill it.
 */
export class ClaimSizer {
  private readonly demand: PendingDemand<Holder>;
  private readonly table: TypeTable;
  private readonly costs: ClassCosts;
  private readonly candidates = new WeakMap<Int32Array, Int32Array>();
  /** The last plan per candidate list and first-pod class: reused while the pods it expects are unreserved. */
  private readonly plans = new WeakMap<Int32Array, Map<string, ClaimPlan>>();

  constructor(demand: PendingDemand<Holder>, table: TypeTable) {
    this.demand = demand;
    this.table = table;
    this.costs = new ClassCosts(demand.classes, table);
  }

  /** The options a new claim starts from (a cheapest-first prefix of `types`) and the pods it expects. */
  size(types: Int32Array, opening: Opening): { types: Int32Array; plan: ClaimPlan } {
    let candidates = this.candidates.get(types);
    if (candidates === undefined) {
      candidates = cheapestBySize(types, opening.pool);
      this.candidates.set(types, candidates);
    }
    const plans = this.plans.get(candidates) ?? new Map<string, ClaimPlan>();
    this.plans.set(candidates, plans);
    const key = `${String(opening.podClass)}/${opening.zone ?? ''}`;
    let plan = plans.get(key);
    if (plan === undefined || !this.stillPending(plan, opening.zone)) {
      plan = this.plan(candidates, opening);
      plans.set(key, plan);
    }
    let end = 0;
    while (end < types.length && this.table.cheapest(types[end] ?? 0, opening.offerMask) <= plan.budget) end++;
    return { types: types.subarray(0, Math.max(end, 1)), plan };
  }

  private stillPending(plan: ClaimPlan, zone: string | undefined): boolean {
    return plan.expected.every((n, c) => n <= this.demand.available(c, zone));
  }

  private plan(candidates: Int32Array, opening: Opening): ClaimPlan {
    // What the fills may draw from: of each class, the pods a claim in this zone may still expect.
    const classes = this.demand.classes.map((k, c) => ({ cpu: k.cpu, memory: k.memory, alone: k.alone, count: this.demand.available(c, opening.zone), reserved: 0 }));
    // The first pod opens the claim whatever its size; what the size is judged by is what joins it.
    const own = this.costs.forPool(opening.pool)[opening.podClass] ?? 0;
    const values = this.costs.joining(opening.pool);
    const demand: FillDemand = { classes, values, live: Int32Array.from(classes.keys()).filter((c) => (classes[c]?.count ?? 0) > 0) };
    let bestScore = Infinity;
    let best: ClaimPlan = { budget: Infinity, expected: new Int32Array(classes.length) };
    let firstFit = new Int32Array(classes.length);
    let balanced = new Int32Array(classes.length);
    for (const i of candidates) {
      const price = this.table.cheapest(i, opening.offerMask);
      const pool = opening.pool;
      const capacity = { cpu: pool.availCpu[i] ?? 0, memory: pool.availMemory[i] ?? 0 };
      const firstFitValue = firstFitByClass(demand, roomAfter(pool, i, classes[opening.podClass]), firstFit);
      const balancedRoom = roomAfter(pool, i, classes[opening.podClass]);
      balancedRoom.pods = Math.min(balancedRoom.pods, balancedPods);
      const balancedValue = balancedFill(demand, balancedRoom, capacity, balanced);
      // Either fill is a way the node could be packed; the one worth more is the node's score.
      const useBalanced = balancedValue > firstFitValue;
      const value = own + (useBalanced ? balancedValue : firstFitValue);
      const score = value > 0 ? price / value : Infinity;
      if (score < bestScore || (score === bestScore && price < best.budget)) {
        bestScore = score;
        best = { budget: price, expected: useBalanced ? balanced : firstFit };
        if (useBalanced) balanced = new Int32Array(classes.length);
        else firstFit = new Int32Array(classes.length);
      }
      firstFit.fill(0);
      balanced.fill(0);
    }
    return best;
  }
}

/** The room one node of type i has left once its first pod is in. */
function roomAfter(pool: NodePoolView, i: number, first: FillClass | undefined): Room {
  const alone = new Set<number>(first?.alone === undefined ? [] : [first.alone]);
  return { cpu: (pool.availCpu[i] ?? 0) - (first?.cpu ?? 0), memory: (pool.availMemory[i] ?? 0) - (first?.memory ?? 0), pods: (pool.availPods[i] ?? 0) - 1, alone };
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
