// Simulation benchmark: Karpenter's diverse-pod shape from 1 to 20,000 pods over the whole catalog, a
// generic-only shape (cost vs the fractional lower bound) and a curve over the instance-type count.
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { simulate } from '../../domain/simulation/simulate.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import { benchNodePool, benchPods, diverseShapes, type BenchShape } from './bench-pods.js';
import { assignmentBound, nodeOffers, podClasses } from './assignment-bound.js';
import { costLowerBound, planTotals, singleTypeBound } from './cost-bound.js';
import type { Bench, BenchOptions } from './bench.js';
import type { LegacyHighs } from 'highs';
import { loadLpSolver } from './lp-solver.js';

const sizes = [1, 50, 100, 500, 1000, 2000, 5000, 10000, 20000];

interface Row { label: string; pods: number; ms: number; cpuMs: number; nodes: number; price: number; cpu: number; memory: number; ratio: number; fitRatio: number; singleRatio: number; fleet: string; boundFleet: string; unschedulable: number; rss: number }

function measure(highs: LegacyHighs, label: string, types: readonly InstanceType[], run: { count: number; shapes: readonly BenchShape[] }): Row {
  const { count, shapes } = run;
  const pods = benchPods(count, shapes);
  const input = { nodes: [], daemonSets: [], pendingPods: pods, nodePools: [benchNodePool()], instanceTypes: types };
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const result: SimulationResult = simulate(input);
  const cpuUsed = process.cpuUsage(cpuStart);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // The machine is shared: CPU time (user + system of this process) is steadier than wall time under load.
  const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
  // Read before the bounds run: HiGHS adds its own memory to the process.
  const rss = process.resourceUsage().maxRSS / 1024;
  const { price, usedCpu, usedMemory, allocCpu, allocMemory } = planTotals(result);
  const bound = costLowerBound(types, usedCpu, usedMemory);
  const single = singleTypeBound(types, { cpu: usedCpu, memory: usedMemory, pods: count });
  const fit = assignmentBound(highs, nodeOffers(types), podClasses(pods));
  return {
    label, pods: count, ms, cpuMs, nodes: result.nodeClaims.length, price, cpu: usedCpu / allocCpu, memory: usedMemory / allocMemory,
    ratio: price / bound, fitRatio: price / fit.cost, singleRatio: price / single,
    fleet: fleetText(result), boundFleet: fit.fleet.map((f) => `${f.name} ${f.nodes.toFixed(0)}`).join(', '), unschedulable: result.unschedulable.length, rss,
  };
}

function fleetText(result: SimulationResult): string {
  const counts = new Map<string, number>();
  for (const c of result.nodeClaims) counts.set(c.instanceTypes[0] ?? '?', (counts.get(c.instanceTypes[0] ?? '?') ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, n]) => `${name} ${String(n)}`).join(', ');
}

function print(title: string, rows: readonly Row[], write: (line: string) => void): void {
  write(`\n${title}\n`);
  write('| run | pods | wall ms | pods/s (wall) | CPU ms | pods/s (CPU) | nodes | $/hour | cpu util | mem util | cost ÷ LP bound | cost ÷ fit bound | cost ÷ 1-type bound | unschedulable | peak RSS MiB |\n');
  write('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  for (const r of rows) {
    const rate = r.pods / (r.ms / 1000);
    write(`| ${r.label} | ${r.pods} | ${r.ms.toFixed(1)} | ${Math.round(rate)} | ${r.cpuMs.toFixed(1)} | ${Math.round(r.pods / (r.cpuMs / 1000))} | ${r.nodes} | ${r.price.toFixed(2)} | ${(r.cpu * 100).toFixed(1)}% | ${(r.memory * 100).toFixed(1)}% | ${r.ratio.toFixed(3)} | ${r.fitRatio.toFixed(3)} | ${r.singleRatio.toFixed(3)} | ${r.unschedulable} | ${r.rss.toFixed(0)} |\n`);
  }
  const last = rows[rows.length - 1];
  if (last !== undefined) write(`\n${last.label} ${String(last.pods)}: plan ${last.fleet}; fit bound ${last.boundFleet}\n`);
}

function typeSubset(all: readonly InstanceType[], count: number): InstanceType[] {
  if (count >= all.length) return [...all];
  const step = all.length / count;
  return Array.from({ length: count }, (_, i) => all[Math.floor(i * step)]).filter((t): t is InstanceType => t !== undefined);
}

/** The simulation benchmark module. */
export const simulationBench: Bench = {
  name: 'simulation',
  async run(options: BenchOptions): Promise<void> {
    const highs = await loadLpSolver();
    const types = loadInstanceTypes();
    const write = options.write;
    const wanted = sizes.filter((s) => s <= options.maxPods);
    // Warm up the JIT once so the first row is not a compile measurement.
    simulate({ nodes: [], daemonSets: [], pendingPods: benchPods(200, diverseShapes), nodePools: [benchNodePool()], instanceTypes: types });
    write(`catalog: ${types.length} instance types (us-east-1, 3 zones, spot + on-demand)\n`);
    print('Diverse pods (Karpenter benchmark shape)', wanted.map((count) => measure(highs, 'diverse', types, { count, shapes: diverseShapes })), write);
    print('Generic pods only', wanted.filter((n) => n >= 100).map((count) => measure(highs, 'generic', types, { count, shapes: ['generic'] })), write);
    const curvePods = Math.min(5000, options.maxPods);
    print(`Instance-type count curve (${curvePods} diverse pods)`, [50, 200, 800, types.length].map((k) => measure(highs, `${String(Math.min(k, types.length))} types`, typeSubset(types, k), { count: curvePods, shapes: diverseShapes })), write);
  },
};
