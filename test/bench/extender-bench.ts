// Extender benchmark: filter and prioritize latency (p50/p99) and throughput at fixed concurrency, with
// 5,000 nodes and 50,000 pods in the view, over a loopback HTTP server driven by an undici Pool (keep-alive)
// in a worker thread,
// so the figures include JSON parsing, schema validation and serialisation, as kube-scheduler sees them.
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { Worker } from 'node:worker_threads';
import { build } from '../../extender/app.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { filterNodes } from '../../extender/filter.js';
import { prioritizeNodes } from '../../extender/prioritize.js';
import type { PodBinder } from '../../provisioner/index.js';
import type { Bench } from './bench.js';
import type { LoadJob, LoadResult } from './extender-load-worker.js';
import { node, plan, pod, virtualNode } from '../extender/builders.js';

export interface ExtenderBenchOptions {
  readonly nodes?: number;
  readonly pods?: number;
  readonly virtualNodes?: number;
  /** kube-scheduler calls filter and prioritize one pod at a time per profile, so 1 is the realistic figure. */
  readonly concurrencies?: readonly number[];
  readonly calls?: number;
  /** Candidate counts per call: kube-scheduler samples ~10% of 5,000 nodes (500); 5,000 is the worst case. */
  readonly candidates?: readonly number[];
  readonly print?: (line: string) => void;
}

export interface ExtenderBenchFigure {
  readonly verb: 'filter' | 'prioritize';
  readonly candidates: number;
  readonly concurrency: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Inside the extender: from the request's arrival to the reply's last byte (fastify's elapsedTime). */
  readonly serverP50Ms: number;
  readonly serverP99Ms: number;
  readonly callsPerSecond: number;
}

const noBinder: PodBinder = { bind: () => Promise.resolve() };

function fillView(view: ClusterState, counts: { nodes: number; pods: number; virtualNodes: number }): string[] {
  const names: string[] = [];
  const real = counts.nodes - counts.virtualNodes;
  for (let i = 0; i < real; i++) {
    const name = `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`;
    names.push(name);
    view.apply({ kind: 'node-upserted', node: node(name, { cpu: '16', memory: '64Gi', labels: { 'karpenter.sh/capacity-type': i % 3 === 0 ? 'spot' : 'on-demand' } }) });
  }
  for (let i = 0; i < counts.virtualNodes; i++) {
    const name = `launchable-default-${i}`;
    names.push(name);
    view.apply({ kind: 'node-upserted', node: virtualNode(name) });
    const assignedPods = Array.from({ length: 10 }, (_, j) => `bench/pending-${i}-${j}`);
    view.apply({ kind: 'plan-upserted', plan: plan(name, { assignedPods, pricePerHour: 0.1 + (i % 7) / 10 }) });
    for (const key of assignedPods) view.apply({ kind: 'pod-upserted', pod: pod({ namespace: 'bench', name: key.slice(6), cpu: '100m' }) });
  }
  for (let i = 0; i < counts.pods - counts.virtualNodes * 10; i++) {
    view.apply({ kind: 'pod-upserted', pod: pod({ namespace: 'bench', name: `running-${i}`, cpu: '250m', memory: '1Gi', nodeName: names[i % real] ?? '', phase: 'Running' }) });
  }
  view.apply({ kind: 'synced' });
  return names;
}

/** Candidates mix real and virtual nodes, as they do after kube-scheduler's own filters. */
function requestBodies(names: readonly string[], candidates: number): string[] {
  return Array.from({ length: 16 }, (_, i) => {
    const start = (i * 311) % names.length;
    const slice = [...names.slice(start), ...names.slice(0, start)].slice(0, candidates);
    return JSON.stringify({ Pod: pod({ namespace: 'bench', name: `incoming-${i}` }), Nodes: null, NodeNames: slice });
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function driveInWorker(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // Node 20 loads a worker's entry before --import hooks apply, so a small script registers tsx first.
    const entry = new URL('./extender-load-worker.ts', import.meta.url).href;
    const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
    const worker = new Worker(bootstrap, { eval: true, workerData: job });
    worker.once('message', (result: LoadResult) => { resolve(result); });
    worker.once('error', reject);
    worker.once('exit', (code) => { if (code !== 0) reject(new Error(`load worker exited with ${code}`)); });
  });
}

interface Measurement {
  readonly verb: 'filter' | 'prioritize';
  readonly candidates: number;
  readonly concurrency: number;
  readonly bodies: readonly string[];
  readonly calls: number;
}

async function measure(url: string, m: Measurement, serverTimes: number[]): Promise<ExtenderBenchFigure> {
  const { latencies, seconds } = await driveInWorker({ url, path: `/${m.verb}`, bodies: m.bodies, concurrency: m.concurrency, calls: m.calls });
  latencies.sort((a, b) => a - b);
  // The worker's warm-up calls come first; the server's last `calls` entries are the measured ones.
  const server = serverTimes.splice(0).slice(-m.calls).sort((a, b) => a - b);
  return {
    verb: m.verb, candidates: m.candidates, concurrency: m.concurrency,
    p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99),
    serverP50Ms: percentile(server, 50), serverP99Ms: percentile(server, 99), callsPerSecond: latencies.length / seconds,
  };
}

/** The decision alone (no HTTP, no JSON): what the in-memory view costs per call. */
function measureDecisions(view: ClusterState, names: readonly string[], candidates: number, print: (line: string) => void): void {
  const incoming = pod({ namespace: 'bench', name: 'incoming' });
  const requests = view.requestsFor(incoming);
  const slice = names.slice(names.length - candidates);
  for (const [verb, decide] of [['filter', () => filterNodes(view, incoming, requests, slice)], ['prioritize', () => prioritizeNodes(view, incoming, requests, slice)]] as const) {
    for (let i = 0; i < 200; i++) decide();
    const latencies: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const started = performance.now();
      decide();
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    print(`extender ${verb.padEnd(10)} candidates=${String(candidates).padStart(5)} decision only   p50=${percentile(latencies, 50).toFixed(3)} ms p99=${percentile(latencies, 99).toFixed(3)} ms`);
  }
}

/** Runs the benchmark and prints one line per (verb, candidate count); returns the figures too. */
export async function runExtenderBench(options: ExtenderBenchOptions = {}): Promise<ExtenderBenchFigure[]> {
  const print = options.print ?? ((line: string) => { process.stdout.write(`${line}\n`); });
  const counts = { nodes: options.nodes ?? 5_000, pods: options.pods ?? 50_000, virtualNodes: options.virtualNodes ?? 100 };
  const view = new ClusterState();
  const fillStarted = performance.now();
  const names = fillView(view, counts);
  const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  print(`extender bench: view holds ${view.nodeCount} nodes and ${view.podCount} pods (filled in ${Math.round(performance.now() - fillStarted)} ms, heap ${heapMiB} MiB); loopback HTTP, undici Pool in a worker thread`);
  for (const candidates of options.candidates ?? [500, 5_000]) measureDecisions(view, names, candidates, print);
  const app = build({ view, binder: noBinder, registry: new Registry(), logger: false });
  // Client-side latency includes the load generator's own GC and the loopback; the server side is the extender's.
  const serverTimes: number[] = [];
  app.addHook('onResponse', (_request, reply, done) => {
    serverTimes.push(reply.elapsedTime);
    done();
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const concurrencies = options.concurrencies ?? [1, 8];
  const figures: ExtenderBenchFigure[] = [];
  const runs = (options.candidates ?? [500, 5_000]).flatMap((candidates) =>
    concurrencies.flatMap((concurrency) => (['filter', 'prioritize'] as const).map((verb) => ({ verb, candidates, concurrency }))));
  try {
    for (const run of runs) {
      const figure = await measure(url, { ...run, bodies: requestBodies(names, run.candidates), calls: options.calls ?? 3_000 }, serverTimes);
      figures.push(figure);
      print(`extender ${run.verb.padEnd(10)} candidates=${String(run.candidates).padStart(5)} concurrency=${run.concurrency} p50=${figure.p50Ms.toFixed(3)} ms p99=${figure.p99Ms.toFixed(3)} ms (in the extender p50=${figure.serverP50Ms.toFixed(3)} ms p99=${figure.serverP99Ms.toFixed(3)} ms) throughput=${Math.round(figure.callsPerSecond)} calls/s`);
    }
  } finally {
    await app.close();
  }
  return figures;
}

/** For test/bench/main.ts: `npm run bench -- --only extender`. */
export const extenderBench: Bench = {
  name: 'extender',
  async run({ write }) {
    await runExtenderBench({ print: (line) => { write(`${line}\n`); } });
  },
};
