// The cost lower bound the benchmark compares against: the cheapest *fractional* cover of total CPU and memory
// requests by instance types (an LP whose optimum uses at most two types), ignoring packing and constraints.
import type { InstanceType } from '../../domain/instance-types/instance-type.js';

interface Unit { readonly cpu: number; readonly memory: number; readonly price: number }

function units(types: readonly InstanceType[]): Unit[] {
  return types.map((t) => ({
    cpu: t.allocatable['cpu'] ?? 0, memory: t.allocatable['memory'] ?? 0,
    price: Math.min(...t.offerings.filter((o) => o.available).map((o) => o.price)),
  })).filter((u) => u.cpu > 0 && u.memory > 0 && Number.isFinite(u.price));
}

/** Keeps only types not dominated in (cpu per $, memory per $), the only ones an optimal cover uses. */
function frontier(all: Unit[]): Unit[] {
  const sorted = [...all].sort((a, b) => b.cpu / b.price - a.cpu / a.price);
  const out: Unit[] = [];
  let bestMemory = -Infinity;
  for (const u of sorted) {
    if (u.memory / u.price > bestMemory) {
      out.push(u);
      bestMemory = u.memory / u.price;
    }
  }
  return out;
}

/** Minimum $/hour to cover `cpu` millicores and `memory` bytes fractionally. */
export function costLowerBound(types: readonly InstanceType[], cpu: number, memory: number): number {
  const f = frontier(units(types));
  let best = Infinity;
  for (const u of f) best = Math.min(best, u.price * Math.max(cpu / u.cpu, memory / u.memory));
  for (const a of f) {
    for (const b of f) {
      const det = a.cpu * b.memory - b.cpu * a.memory;
      if (det === 0) continue;
      const xa = (cpu * b.memory - b.cpu * memory) / det;
      const xb = (a.cpu * memory - cpu * a.memory) / det;
      if (xa >= 0 && xb >= 0) best = Math.min(best, xa * a.price + xb * b.price);
    }
  }
  return best;
}
