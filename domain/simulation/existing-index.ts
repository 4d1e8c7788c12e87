import { ExistingBin } from './existing-bin.js';
import type { PlacementContext } from './placement-context.js';
import type { PodShape } from './pod-shape.js';
import type { ReasonCollector } from './reasons.js';
import type { ShapeVariant } from './relaxation.js';
import type { StandingNode } from './standing-cluster.js';

/**
 * The nodes a simulation starts with, searched through an index by free CPU: a pod tries only nodes that had at
 * least its CPU free when the pass began (rooms only shrink during a pass), least free first, so pods fill the
 * fullest nodes that take them and a pass over thousands of nodes tries the few that can.
 */
export class ExistingIndex {
  /** In the input's order, for the result. */
  readonly bins: ExistingBin[];
  private readonly byRoom: readonly ExistingBin[];
  private readonly startCpu: Float64Array;

  constructor(nodes: readonly StandingNode[], byFreeCpu: Int32Array) {
    this.bins = nodes.map((n) => new ExistingBin(n));
    this.byRoom = Array.from(byFreeCpu, (i) => this.bins[i]).filter((b): b is ExistingBin => b !== undefined);
    this.startCpu = Float64Array.from(byFreeCpu, (i) => nodes[i]?.free['cpu'] ?? 0);
  }

  /** The first node (least free CPU first) that takes the pod, or undefined; rejections go to `reasons`. */
  place(shape: PodShape, variant: ShapeVariant, ctx: PlacementContext, reasons: ReasonCollector): ExistingBin | undefined {
    const first = this.firstWith(shape.cpu);
    reasons.node('too little cpu', first);
    for (let i = first; i < this.byRoom.length; i++) {
      const bin = this.byRoom[i];
      if (bin === undefined) continue;
      const rejection = bin.tryAdd(shape, variant, ctx);
      if (rejection === undefined) return bin;
      reasons.node(rejection.reason);
    }
    return undefined;
  }

  /** Index of the first node that had at least `cpu` millicores free at the start (binary search). */
  private firstWith(cpu: number): number {
    let lo = 0;
    let hi = this.startCpu.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.startCpu[mid] ?? 0) < cpu) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
