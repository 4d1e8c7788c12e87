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
  private readonly byPool = new Map<number, Float64Array>();

  constructor(private readonly classes: readonly DemandClass[], private readonly table: TypeTable) {}

  forPool(pool: NodePoolView): Float64Array {
    let costs = this.byPool.get(pool.index);
    if (costs === undefined) {
      costs = Float64Array.from(this.classes, (c) => this.standalone(pool, c.cpu, c.memory));
      this.byPool.set(pool.index, costs);
    }
    return costs;
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
