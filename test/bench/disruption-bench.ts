// Disruption benchmark: how long the extender's filter waits while a disruption pass runs in the same process.
// 1,000 managed nodes with 10 pods each; drifted candidates whose pods fit nowhere make the drift method run one
// simulation after another (the worst case for the event loop, as consolidation will be). A ticker calls the filter
// every millisecond; each figure is the time from when the call was due to when its answer was ready.
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { FakeClock } from '../../domain/clock.js';
import { formatProviderId } from '../../domain/cloud/provider-id.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { filterNodes } from '../../extender/filter.js';
import { DisruptionController } from '../../provisioner/disruption/controller.js';
import { DriftMethod } from '../../provisioner/disruption/drift-method.js';
import { EmptinessMethod } from '../../provisioner/disruption/emptiness.js';
import { InProcessSimulator, type DisruptionSimulator } from '../../provisioner/disruption/simulator/simulator.js';
import { WorkerSimulator } from '../../provisioner/disruption/simulator/worker-simulator.js';
import { DisruptionMetrics } from '../../provisioner/disruption/metrics.js';
import type { ClusterState } from '../../provisioner/state/cluster-state.js';
import { appPod, initializedClaim, managedNode } from '../provisioner/disruption/harness.js';
import { FakeEventRecorder } from '../fakes/fake-cluster.js';
import { stateWith } from '../fakes/cluster-state.js';
import { nodeClass, nodePool, pendingPod } from '../fakes/provisioning-builders.js';
import type { Bench } from './bench.js';

interface Lags { readonly p50: number; readonly p99: number; readonly max: number; readonly calls: number }

function lags(samples: number[]): Lags {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN, calls: sorted.length };
}

export function disruptionBenchCluster(nodes: number, stuck: number): { state: ClusterState; names: string[] } {
  const state = stateWith({ nodePools: [nodePool('default', { disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '100%' }] } })], nodeClasses: [nodeClass()] });
  const names: string[] = [];
  for (let i = 0; i < nodes; i++) {
    const name = `i-${String(i).padStart(6, '0')}`;
    names.push(name);
    state.upsertNode({ ...managedNode(name), spec: { providerID: formatProviderId('us-east-1a', name) } });
    state.upsertNodeClaim(initializedClaim(`nc-${String(i)}`, name, i < stuck ? ['Drifted'] : []));
    for (let j = 0; j < 10; j++) {
      const pod = appPod(`p-${String(i)}-${String(j)}`, name);
      // The drifted nodes' pods want a label no NodePool offers: every simulation ends unschedulable.
      state.upsertPod(i < stuck ? { ...pod, spec: { ...pod.spec, nodeSelector: { 'bench/nowhere': 'true' } } } : pod);
    }
  }
  return { state, names };
}

function isDone(flag: { readonly done: boolean }): boolean {
  return flag.done;
}

/** Calls the filter every millisecond until `until` resolves; returns each call's delay-plus-duration in ms. */
async function tickFilter(state: ClusterState, names: readonly string[], until: Promise<unknown>): Promise<number[]> {
  const pod = pendingPod('incoming');
  const requests = state.requestsFor(pod);
  const slice = names.slice(0, 500);
  const samples: number[] = [];
  const flag = { done: false };
  void until.finally(() => { flag.done = true; });
  while (!isDone(flag)) {
    const due = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1));
    filterNodes(state, pod, requests, slice);
    samples.push(performance.now() - due - 1);
  }
  return samples;
}

function controllerFor(state: ClusterState, catalog: readonly InstanceType[], simulator: DisruptionSimulator): DisruptionController {
  return new DisruptionController({
    state, clock: new FakeClock(Date.now()), methods: [new EmptinessMethod(), new DriftMethod()], recorder: new FakeEventRecorder(), simulator,
    nodes: { addTaint: () => Promise.resolve(), removeTaint: () => Promise.resolve() },
    store: { get: () => Promise.resolve(undefined), patchStatus: () => Promise.reject(new Error('not in this bench')), delete: () => Promise.resolve(), addAnnotations: () => Promise.resolve() },
    launcher: { nameFor: () => 'not-in-this-bench', launch: () => Promise.reject(new Error('not in this bench')) },
    instanceTypes: () => catalog, unavailableOfferings: () => new Set(), priceOf: () => 0.1,
    metrics: new DisruptionMetrics(new Registry()),
  });
}

function line(label: string, l: Lags, extra = ''): string {
  return `${label.padEnd(44)} p50 ${l.p50.toFixed(2).padStart(6)} ms, p99 ${l.p99.toFixed(2).padStart(7)} ms, max ${l.max.toFixed(2).padStart(7)} ms (${String(l.calls)} calls)${extra}\n`;
}

/** One disruption pass while the filter ticks: the filter's waits and how long the pass took. */
async function duringPass(state: ClusterState, names: readonly string[], controller: DisruptionController): Promise<{ lags: Lags; passMs: number }> {
  const started = performance.now();
  const pass = controller.reconcile().then(() => performance.now() - started);
  const lagsDuring = lags(await tickFilter(state, names, pass));
  return { lags: lagsDuring, passMs: await pass };
}

export const disruptionBench: Bench = {
  name: 'disruption',
  async run({ write }) {
    const stuck = 20;
    const { state, names } = disruptionBenchCluster(1000, stuck);
    const catalog = loadInstanceTypes();
    write(`1000 nodes, 10,000 pods, ${String(stuck)} drifted nodes whose pods fit nowhere (${String(stuck)} simulations in one pass), ${String(catalog.length)} instance types\n`);
    write('the filter is called every 1 ms with 500 candidates; each figure is due -> answered\n');
    write(line('idle', lags(await tickFilter(state, names, new Promise((resolve) => setTimeout(resolve, 2000))))));
    const onThread = await duringPass(state, names, controllerFor(state, catalog, new InProcessSimulator()));
    write(line('pass, simulations on the main thread (before)', onThread.lags, `; pass ${onThread.passMs.toFixed(0)} ms`));
    const worker = new WorkerSimulator();
    try {
      const controller = controllerFor(state, catalog, worker);
      const cold = await duringPass(state, names, controller);
      write(line('pass, worker thread, first (whole copy sent)', cold.lags, `; pass ${cold.passMs.toFixed(0)} ms`));
      const sentFirst = { ...worker.sentCounts };
      const warm = await duringPass(state, names, controller);
      write(line('pass, worker thread, next (changes only)', warm.lags, `; pass ${warm.passMs.toFixed(0)} ms`));
      write(`sent to the worker: first pass ${String(sentFirst.instanceTypes)} instance types + ${String(sentFirst.nodes)} nodes; next pass ${String(worker.sentCounts.nodes - sentFirst.nodes)} nodes; ${String(worker.sentCounts.questions)} questions in all\n`);
      write(line('idle again', lags(await tickFilter(state, names, new Promise((resolve) => setTimeout(resolve, 2000))))));
    } finally {
      await worker.close();
    }
  },
};
