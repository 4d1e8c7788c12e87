// Disruption benchmark: how long the extender's filter waits while a disruption pass runs in the same process.
// 1,000 managed nodes with 10 pods each; drifted candidates whose pods fit nowhere make the drift method run one
// simulation after another (the worst case for the event loop, as consolidation will be). A ticker calls the filter
// every millisecond; each figure is the time from when the call was due to when its answer was ready.
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { FakeClock } from '../../domain/clock.js';
import { formatProviderId } from '../../domain/cloud/provider-id.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { filterNodes } from '../../extender/filter.js';
import { DisruptionController } from '../../provisioner/disruption/controller.js';
import { DriftMethod } from '../../provisioner/disruption/drift-method.js';
import { EmptinessMethod } from '../../provisioner/disruption/emptiness.js';
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

function cluster(nodes: number, stuck: number): { state: ClusterState; names: string[] } {
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

export const disruptionBench: Bench = {
  name: 'disruption',
  async run({ write }) {
    const stuck = 20;
    const { state, names } = cluster(1000, stuck);
    const clock = new FakeClock(Date.now());
    const catalog = loadInstanceTypes();
    const controller = new DisruptionController({
      state, clock, methods: [new EmptinessMethod(), new DriftMethod()], recorder: new FakeEventRecorder(),
      nodes: { addTaint: () => Promise.resolve(), removeTaint: () => Promise.resolve() },
      store: { get: () => Promise.resolve(undefined), patchStatus: () => Promise.reject(new Error('not in this bench')), delete: () => Promise.resolve() },
      launcher: { launch: () => Promise.reject(new Error('not in this bench')) },
      instanceTypes: () => catalog, unavailableOfferings: () => new Set(), priceOf: () => 0.1,
      metrics: new DisruptionMetrics(new Registry()),
    });
    const idle = lags(await tickFilter(state, names, new Promise((resolve) => setTimeout(resolve, 2000))));
    const started = performance.now();
    const pass = controller.reconcile();
    const busy = lags(await tickFilter(state, names, pass));
    const passMs = performance.now() - started;
    write(`1000 nodes, 10,000 pods, ${String(stuck)} drifted nodes whose pods fit nowhere (${String(stuck)} simulations in one pass)\n`);
    write(`filter every 1 ms, 500 candidates: idle p50 ${idle.p50.toFixed(2)} ms, p99 ${idle.p99.toFixed(2)} ms, max ${idle.max.toFixed(2)} ms (${String(idle.calls)} calls)\n`);
    write(`filter during the pass:             p50 ${busy.p50.toFixed(2)} ms, p99 ${busy.p99.toFixed(2)} ms, max ${busy.max.toFixed(2)} ms (${String(busy.calls)} calls)\n`);
    write(`disruption pass: ${passMs.toFixed(0)} ms (${String(catalog.length)} instance types); the filter waits for at most one simulation\n`);
  },
};
