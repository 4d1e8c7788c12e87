import type { NodePoolView } from './nodepool-view.js';
import type { DemandClass } from './pending-demand.js';
import type { TypeTable } from './type-table.js';

/**
 * What each pending request class costs at best on its own, per NodePool: the cheapest fraction of one
 * instance type that holds the pod (price × its largest share of CPU, memory or pod slots). A node whose pods
 * are worth more than its price, in these terms, buys their resources cheaper than any type could alone, which
 * is what mixing CPU-heavy and memory-heavy pods achieves.
 */
export class ClassCosts {
  private readonly classes: readonly DemandClass[];
  private readonly table: TypeTable;
  private readonly byPool = new Map<number, Float64Array>();

  constructor(classes: readonly DemandClass[], table: TypeTable) {
    this.classes = classes;
    this.table = table;
  }

  forPool(pool: NodePoolView): Float64Array {
    let costs = this.byPool.get(pool.index);
    if (costs === undefined) {
      costs = Float64Array.from(this.classes, (c) => this.standalone(pool, c.cpu, c.memory));
      this.byPool.set(pool.index, costs);
    }
    return costs;
  }

  /**
   * What each class is worth on a node it joins: its standalone cost, except for a pod that takes a node of its own
   * from its group (PendingDemand's `alone`: anti-affinity to itself, a hostname spread of skew 1). Such a group needs
   * as many nodes as it has pods; where the nodes opened for other pods are too few, one that joins a node saves a
   * whole node, and where they are enough it saves only its share. Which holds is not known when a claim is sized,
   * so it is worth halfway between its share and the cheapest node that holds it. Valued by its share alone, a
   * hostname spread's pods and a soft anti-affinity's each opened a node of the smallest size and never met (396
   * nodes for 600 pods where 200 hold them); valued as a whole node, Karpenter's diverse shapes on the catalog cost
   * up to 1.6% more; halfway is at least as good as either on both but for two cases within 0.7% (DECISIONS.md).
   */
  joining(pool: NodePoolView): Float64Array {
    let values = this.joiningByPool.get(pool.index);
    if (values === undefined) {
      const shares = this.forPool(pool);
      values = Float64Array.from(this.classes, (c, i) => (c.alone === undefined ? shares[i] ?? 0 : ((shares[i] ?? 0) + this.wholeNode(pool, c.cpu, c.memory)) / 2));
      this.joiningByPool.set(pool.index, values);
    }
    return values;
  }

  private readonly joiningByPool = new Map<number, Float64Array>();

  private wholeNode(pool: NodePoolView, cpu: number, memory: number): number {
    let best = Infinity;
    for (let i = 0; i < this.table.n; i++) {
      if (pool.typeMask[i] !== 1 || (pool.availCpu[i] ?? 0) < cpu || (pool.availMemory[i] ?? 0) < memory || (pool.availPods[i] ?? 0) < 1) continue;
      best = Math.min(best, this.table.cheapest(i, pool.offerMask));
    }
    return Number.isFinite(best) ? best : 0;
  }

  private standalone(pool: NodePoolView, cpu: number, memory: number): number {
    let best = Infinity;
    for (let i = 0; i < this.table.n; i++) {
      const room = { cpu: pool.availCpu[i] ?? 0, memory: pool.availMemory[i] ?? 0, pods: pool.availPods[i] ?? 0 };
      if (pool.typeMask[i] !== 1 || room.cpu < cpu || room.memory < memory || room.pods < 1) continue;
      const share = Math.max(room.cpu > 0 ? cpu / room.cpu : 0, room.memory > 0 ? memory / room.memory : 0, 1 / room.pods);
      best = Math.min(best, this.table.cheapest(i, pool.offerMask) * share);
    }
    return Number.isFinite(best) ? best : 0;
  }
}
