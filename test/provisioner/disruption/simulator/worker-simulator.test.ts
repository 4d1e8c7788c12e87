import t, { type Test } from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ConsolidationWorld, SimulationQuestion } from '../../../../domain/disruption/consolidation/consolidation-world.js';
import type { SimulationResult } from '../../../../domain/simulation/simulation-input.js';
import { InProcessSimulator } from '../../../../provisioner/disruption/simulator/simulator.js';
import { WorkerSimulator } from '../../../../provisioner/disruption/simulator/worker-simulator.js';
import { fakeNode, pod, pods, smallCatalog, world, type FakeNode } from '../../../domain/disruption/consolidation/fixtures.js';

const inProcess = new InProcessSimulator();

function question(...candidates: FakeNode[]): SimulationQuestion {
  return { without: new Set(candidates.map((c) => c.candidate.nodeName)), pods: candidates.flatMap((c) => c.candidate.reschedulablePods) };
}

/** Where each pod went, in words that compare across threads (the results hold different objects). */
function placements(result: SimulationResult): string[] {
  return [
    ...result.existing.flatMap((e) => e.pods.map((p) => `${p.metadata.name ?? ''} -> ${e.node}`)),
    ...result.nodeClaims.flatMap((c) => c.pods.map((p) => `${p.metadata.name ?? ''} -> new ${c.instanceTypes[0] ?? '?'} at ${c.pricePerHour.toFixed(4)}`)),
    ...result.unschedulable.map((u) => `${u.pod.metadata.name ?? ''} unschedulable: ${u.reason}`),
  ].sort();
}

async function sameAnswers(t: Test, simulator: WorkerSimulator, w: ConsolidationWorld, questions: readonly SimulationQuestion[]): Promise<void> {
  for (const q of questions) t.same(placements(await simulator.simulate(w, q)), placements(await inProcess.simulate(w, q)));
}

void t.test('the worker answers what the simulation on this thread answers, with the caller\'s own pod objects', async (t) => {
  const simulator = new WorkerSimulator({ chunk: 2 });
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 2, { cpu: '500m', memory: '1Gi' }));
  const roomy = fakeNode('roomy', 'm5.xlarge', [pod('db', { cpu: '1', memory: '2Gi' })]);
  const full = fakeNode('full', 'm5.large', [pod('big', { cpu: '1800m', memory: '6Gi' })]);
  const w = world([small, roomy, full]);
  const moved = await simulator.simulate(w, question(small));
  t.same(placements(moved), ['web-0 -> roomy', 'web-1 -> roomy']);
  t.equal(moved.existing[0]?.pods[0], small.candidate.reschedulablePods[0], 'the very pod object the question asked about');
  await sameAnswers(t, simulator, w, [question(roomy), question(full), question(small, roomy), question(small, roomy, full)]);
});

void t.test('a later pass sends only what changed, and its answers follow the changed cluster', async (t) => {
  const simulator = new WorkerSimulator({ chunk: 1 });
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 2, { cpu: '500m', memory: '1Gi' }));
  const roomy = fakeNode('roomy', 'm5.xlarge', [pod('db', { cpu: '1', memory: '2Gi' })]);
  const spare = fakeNode('spare', 'm5.xlarge', []);
  const first = world([small, roomy, spare]);
  t.same(placements(await simulator.simulate(first, question(small))), ['web-0 -> roomy', 'web-1 -> roomy']);
  await simulator.simulate(first, question(roomy));
  t.same(simulator.sentCounts, { nodes: 3, instanceTypes: smallCatalog.length, worlds: 1, questions: 2 }, 'the world went once for both questions');
  // roomy fills up and spare goes away: the pods of small now need a new node.
  const filled = fakeNode('roomy', 'm5.xlarge', [pod('db', { cpu: '1', memory: '2Gi' }), pod('cache', { cpu: '2500m', memory: '10Gi' })]);
  const later = world([small, filled]);
  const answer = await simulator.simulate(later, question(small));
  t.equal(simulator.sentCounts.nodes, 4, 'only the node that changed went again');
  t.equal(simulator.sentCounts.instanceTypes, smallCatalog.length, 'the catalog went once');
  t.equal(answer.existing.length, 0, 'no node that stays has room');
  t.equal(answer.nodeClaims.length, 1);
  await sameAnswers(t, simulator, later, [question(small), question(filled), question(small, filled)]);
  // spare comes back unchanged: it is sent again because the worker dropped it.
  await sameAnswers(t, simulator, world([small, filled, spare]), [question(small), question(filled)]);
  t.equal(simulator.sentCounts.nodes, 5);
});

void t.test('a question that cannot be sent is refused with the reason, and the next one is answered', async (t) => {
  const simulator = new WorkerSimulator();
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 1, { cpu: '500m', memory: '1Gi' }));
  const roomy = fakeNode('roomy', 'm5.xlarge', []);
  const w = world([small, roomy]);
  const unsendable = { ...question(small), pods: [{ ...pod('odd', { cpu: '1', memory: '1Gi' }), later: () => 1 }] };
  await t.rejects(simulator.simulate(w, unsendable), /could not be cloned/);
  t.same(placements(await simulator.simulate(w, question(small))), ['web-0 -> roomy']);
});

void t.test('a worker that does not answer in time is stopped and the call refused with the reason', async (t) => {
  const simulator = new WorkerSimulator({ timeoutMs: 1 });
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 1, { cpu: '500m', memory: '1Gi' }));
  const w = world([small, fakeNode('roomy', 'm5.xlarge', [])]);
  // Starting a worker takes far longer than 1 ms, so the first answer is late.
  await t.rejects(simulator.simulate(w, question(small)), /did not answer within 1 ms/);
});

void t.test('a closed simulator starts again on the next call', async (t) => {
  const simulator = new WorkerSimulator();
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 1, { cpu: '500m', memory: '1Gi' }));
  const w = world([small, fakeNode('roomy', 'm5.xlarge', [])]);
  t.same(placements(await simulator.simulate(w, question(small))), ['web-0 -> roomy']);
  await simulator.close();
  t.same(placements(await simulator.simulate(w, question(small))), ['web-0 -> roomy'], 'the new worker received the whole world again');
});

void t.test('between passes it keeps no pod and no world of the last pass alive, only what tells a change', async (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const simulator = new WorkerSimulator();
  t.teardown(() => simulator.close());
  const weak = await (async () => {
    const node = fakeNode('small', 'm5.large', pods('web', 2, { cpu: '500m', memory: '1Gi' }));
    const w = world([node]);
    await simulator.simulate(w, question(node));
    return { pod: new WeakRef(node.snapshot.pods[0] ?? {}), world: new WeakRef(w) };
  })();
  // A WeakRef holds its target until the current job ends.
  await new Promise((resolve) => { setImmediate(resolve); });
  gc();
  t.equal(weak.pod.deref(), undefined, 'the pod the model has since replaced is collectable');
  t.equal(weak.world.deref(), undefined, 'the pass\'s world is collectable');
  const again = fakeNode('small', 'm5.large', pods('web', 2, { cpu: '500m', memory: '1Gi' }));
  await simulator.simulate(world([again]), question(again));
  t.equal(simulator.sentCounts.nodes, 2, 'a node whose pods are new objects goes again');
});

void t.test("consolidation's simulation in the worker sizes replacements by the NodePool's EC2NodeClass, as on this thread", async (t) => {
  const simulator = new WorkerSimulator({ chunk: 2 });
  t.teardown(() => simulator.close());
  const busy = fakeNode('busy', 'm5.xlarge', pods('tiny', 30, { cpu: '10m', memory: '16Mi' }));
  const [base] = world([]).nodePools;
  if (base === undefined) throw new Error('the fixture world has a NodePool');
  const classed = { ...base, spec: { ...base.spec, template: { ...base.spec.template, spec: { ...base.spec.template.spec, nodeClassRef: { name: 'dense' } } } } };
  const w = { ...world([busy], [classed]), nodeClasses: [{ name: 'dense', amiFamily: 'AL2023', kubelet: { maxPods: 20 } }] };
  const result = await simulator.simulate(w, question(busy));
  t.ok(result.nodeClaims.length >= 2, 'thirty pods need two nodes of at most 20 pods');
  t.ok(result.nodeClaims.every((c) => c.pods.length <= 20 && c.allocatable['pods'] === 20));
  await sameAnswers(t, simulator, w, [question(busy)]);
});
