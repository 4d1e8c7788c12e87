import { ExistingBin } from './existing-bin.js';
import type { PlacementContext } from './placement-context.js';
import type { PodShape } from './pod-shape.js';
import type { ReasonCollector } from './reasons.js';
import type { ShapeVariant } from './relaxation.js';
import type { StandingNode } from './standing-cluster.js';

/**
 * The nodes a simulation starts with, searched through an index by free CPU: a pod tries only nodes that had at
 * least its CPU free when the pass began (rooms only shrink during a pass), least free first, so pods fill the
 * fullest nodes that take them and a pass over thousands of nodes tries the few that can. A node's bin (its room
 * for this pass) is made the first time a pod tries it, so a small batch does not copy the whole cluster.
 */
export class ExistingIndex {
  private readonly nodes: readonly StandingNode[];
  private readonly byFreeCpu: Int32Array;
  private readonly made = new Map<number, ExistingBin>();
  private readonly startCpu: Float64Array;

  constructor(nodes: readonly StandingNode[], byFreeCpu: Int32Array) {
    this.nodes = nodes;
    this.byFreeCpu = byFreeCpu;
    this.startCpu = Float64Array.from(byFreeCpu, (i) => nodes[i]?.free['cpu'] ?? 0);
  }

  /** The bins pods were tried on, in the input's order (the others hold nothing new). */
  get bins(): ExistingBin[] {
    return [...this.made].sort((a, b) => a[0] - b[0]).map(([, bin]) => bin);
  }

  /** The first node (least free CPU first) that takes the pod, or undefined; rejections go to `reasons`. */
  place(shape: PodShape, variant: ShapeVariant, ctx: PlacementContext, reasons: ReasonCollector): ExistingBin | undefined {
    const first = this.firstWith(shape.cpu);
    reasons.node('too little cpu', first);
    for (let k = first; k < this.byFreeCpu.length; k++) {
      const bin = this.bin(this.byFreeCpu[k] ?? -1);
      if (bin === undefined) continue;
      const rejection = bin.tryAdd(shape, variant, ctx);
      if (rejection === undefined) return bin;
      reasons.node(rejection.reason);
    }
    return undefined;
  }

  private bin(i: number): ExistingBin | undefined {
    let bin = this.made.get(i);
    const node = this.nodes[i];
    if (bin === undefined && node !== undefined) this.made.set(i, (bin = new ExistingBin(node)));
    return bin;
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
