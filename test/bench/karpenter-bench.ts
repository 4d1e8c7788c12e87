// Karpenter's own scheduling benchmark, side by side: its pod shape (makeDiversePods, per-pod random draws) over
// its 400 synthetic instance types and over the real catalog, each shape alone, and a steady-state case (a
// standing cluster of ~4,000 nodes and 20,000 pods taking small batches). Every plan is checked by the
// independent validator (test/support/validate-plan.ts); figures are medians of --runs (default 5) runs.
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { Pod } from '../../domain/core/pod.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { simulate } from '../../domain/simulation/simulate.js';
import { StandingCluster } from '../../domain/simulation/standing-cluster.js';
import type { SimulationInput, SimulationResult, SnapshotNode } from '../../domain/simulation/simulation-input.js';
import { checkPlan } from '../support/validate-plan.js';
import { benchNodePool, diverseShapes, karpenterPods } from './bench-pods.js';
import type { Bench, BenchOptions } from './bench.js';
import { costLowerBound, planTotals } from './cost-bound.js';
import { syntheticInstanceTypes, syntheticPrice, syntheticZones } from './synthetic-types.js';

interface Catalog { readonly name: string; readonly types: readonly InstanceType[]; readonly bound: (cpu: number, memory: number) => number }
interface Timed { readonly result: SimulationResult; readonly ms: number; readonly cpuMs: number; readonly firstMs: number }

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/**
 * Runs the simulation `runs` times on the same input; the plan of the first run, the median wall and CPU time
 * (the machine is shared: CPU time is steadier than wall time under load) and the first run's wall time.
 */
function timed(input: SimulationInput, runs: number, standing?: StandingCluster): Timed {
  const times: number[] = [];
  const cpu: number[] = [];
  let result: SimulationResult | undefined;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const r = simulate(input, standing);
    const used = process.cpuUsage(cpuStart);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    cpu.push((used.user + used.system) / 1000);
    result ??= r;
  }
  if (result === undefined) throw new Error('no run');
  return { result, ms: median(times), cpuMs: median(cpu), firstMs: times[0] ?? NaN };
}

function costOf(result: SimulationResult, catalog: Catalog): { price: number; ratio: number } {
  const { price, usedCpu, usedMemory } = planTotals(result);
  return { price, ratio: price / catalog.bound(usedCpu, usedMemory) };
}

const header = '| case | types | pods | wall ms (median) | pods/s (wall) | CPU ms (median) | pods/s (CPU) | first run wall ms | nodes | $/hour | cost ÷ resource bound | unschedulable | validator |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n';

function row(label: string, catalog: Catalog, input: SimulationInput, run: { runs: number; standing?: StandingCluster }): string {
  const { result, ms, cpuMs, firstMs } = timed(input, run.runs, run.standing);
  const { price, ratio } = costOf(result, catalog);
  const errors = checkPlan(input, result);
  const verdict = errors.length === 0 ? 'ok' : `${errors.length} violations, e.g. ${errors[0] ?? ''}`;
  const pods = input.pendingPods.length;
  const rate = (t: number): number => Math.round(pods / (t / 1000));
  return `| ${label} | ${catalog.name} | ${pods} | ${ms.toFixed(1)} | ${rate(ms)} | ${cpuMs.toFixed(1)} | ${rate(cpuMs)} | ${firstMs.toFixed(1)} | ${result.nodeClaims.length} | ${price.toFixed(2)} | ${ratio.toFixed(3)} | ${result.unschedulable.length} | ${verdict} |\n`;
}

function fresh(pods: readonly Pod[], types: readonly InstanceType[], nodes: readonly SnapshotNode[] = []): SimulationInput {
  return { nodes, daemonSets: [], pendingPods: pods, nodePools: [benchNodePool()], instanceTypes: types };
}

/** The plan's claims as running nodes: a zone is picked round-robin where the plan left it open. */
function standingCluster(result: SimulationResult, zones: readonly string[]): SnapshotNode[] {
  return result.nodeClaims.map((c, i) => ({
    name: c.name,
    labels: { ...c.labels, 'kubernetes.io/hostname': c.name, 'topology.kubernetes.io/zone': c.zone ?? zones[i % zones.length] ?? '', 'karpenter.sh/capacity-type': c.capacityType ?? 'spot', 'karpenter.sh/nodepool': c.nodePool },
    taints: [], allocatable: c.allocatable, pods: c.pods, pricePerHour: c.pricePerHour,
  }));
}

function renamed(pods: readonly Pod[], prefix: string): Pod[] {
  return pods.map((p) => ({ ...p, metadata: { ...p.metadata, name: `${prefix}-${p.metadata.name ?? ''}`, uid: `${prefix}-${p.metadata.uid ?? ''}` } }));
}

/** Heap in use after a full collection (v8's gc exposed for the measurement), in MiB. */
function heapMiB(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function steadyState(catalog: Catalog, options: BenchOptions, runs: number): void {
  const clusterPods = Math.min(20000, options.maxPods);
  const plan = simulate(fresh(karpenterPods(clusterPods, diverseShapes), catalog.types));
  const before = heapMiB();
  const nodes = standingCluster(plan, syntheticZones);
  const afterNodes = heapMiB();
  const standing = new StandingCluster();
  standing.sync(nodes);
  const afterModel = heapMiB();
  options.write(`\nSteady state: ${nodes.length} nodes running ${nodes.reduce((s, n) => s + n.pods.length, 0)} pods (a ${clusterPods}-pod diverse plan), new diverse batches; `
    + `memory: node snapshots ${(afterNodes - before).toFixed(1)} MiB (their pods are the plan's, shared), standing cluster ${(afterModel - afterNodes).toFixed(1)} MiB\n${header}`);
  for (const size of [1, 10, 100]) {
    const input = fresh(renamed(karpenterPods(size, diverseShapes, 7), 'new'), catalog.types, nodes);
    options.write(row(`batch of ${size}, fresh snapshot`, catalog, input, { runs }));
    options.write(row(`batch of ${size}, standing cluster`, catalog, input, { runs, standing }));
  }
}

/** The Karpenter comparison benchmark module. */
export const karpenterBench: Bench = {
  name: 'karpenter',
  run(options: BenchOptions): void {
    const runs = Number(options.flag('--runs') ?? 5);
    const synthetic: Catalog = { name: 'synthetic 400', types: syntheticInstanceTypes(400), bound: syntheticPrice };
    const real = loadInstanceTypes();
    const catalogs: Catalog[] = [synthetic, { name: `catalog ${real.length}`, types: real, bound: (cpu, memory) => costLowerBound(real, cpu, memory) }];
    // Warm up the JIT once so the first row is not a compile measurement.
    simulate(fresh(karpenterPods(500, diverseShapes), synthetic.types));
    const sizes = [1000, 5000, 10000, 20000].filter((n) => n <= options.maxPods);
    const single = Math.min(8000, options.maxPods);
    for (const catalog of catalogs) {
      options.write(`\nKarpenter's makeDiversePods over ${catalog.name} types, median of ${runs}\n${header}`);
      for (const n of sizes) options.write(row('diverse', catalog, fresh(karpenterPods(n, diverseShapes), catalog.types), { runs }));
      for (const shape of diverseShapes) options.write(row(shape, catalog, fresh(karpenterPods(single, [shape]), catalog.types), { runs }));
    }
    steadyState(synthetic, options, runs);
  },
};
