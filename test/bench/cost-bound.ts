// The cost lower bound the benchmark compares against: the cheapest *fractional* cover of total CPU and memory
// requests by instance types (an LP whose optimum uses at most two types), ignoring packing and constraints.
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';

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

/**
 * The cheapest fleet of one instance type, fractionally: min over types of price × max(CPU, memory, pods share).
 * A reference that whole pods can approach, unlike the LP bound, which may pair CPU from a 0.5 GiB t4g.nano with
 * memory from an x2gd.
 */
export function singleTypeBound(types: readonly InstanceType[], need: { cpu: number; memory: number; pods: number }): number {
  let best = Infinity;
  for (const t of types) {
    const price = Math.min(...t.offerings.filter((o) => o.available).map((o) => o.price));
    const cpu = t.allocatable['cpu'] ?? 0;
    const memory = t.allocatable['memory'] ?? 0;
    const pods = t.allocatable['pods'] ?? 0;
    if (cpu <= 0 || memory <= 0 || pods <= 0 || !Number.isFinite(price)) continue;
    best = Math.min(best, price * Math.max(need.cpu / cpu, need.memory / memory, need.pods / pods));
  }
  return best;
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

/** A plan's new claims summed: $/hour, requested and allocatable CPU (millicores) and memory (bytes). */
export interface PlanTotals { price: number; usedCpu: number; usedMemory: number; allocCpu: number; allocMemory: number }

export function planTotals(result: SimulationResult): PlanTotals {
  const totals: PlanTotals = { price: 0, usedCpu: 0, usedMemory: 0, allocCpu: 0, allocMemory: 0 };
  for (const c of result.nodeClaims) {
    totals.price += c.pricePerHour;
    totals.usedCpu += c.requests['cpu'] ?? 0;
    totals.usedMemory += c.requests['memory'] ?? 0;
    totals.allocCpu += c.allocatable['cpu'] ?? 0;
    totals.allocMemory += c.allocatable['memory'] ?? 0;
  }
  return totals;
}
