import t from 'tap';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';
import { scaleInRank } from '../../domain/disruption/scale-in-rank.js';
import { podDeletionCostKey } from '../../domain/karpenter-keys.js';

function bindArgs(name: string, nodeName: string): Record<string, string> {
  return { PodName: name, PodNamespace: 'default', PodUID: `uid-${name}`, Node: nodeName };
}

async function bind(h: ReturnType<typeof harness>, name: string, nodeName: string): Promise<string> {
  const response = await h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs(name, nodeName) });
  if (response.statusCode !== 200) throw new Error(`bind answered ${response.statusCode}: ${response.body}`);
  return response.json<{ Error: string }>().Error;
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

void t.test('a bind to a real node creates the Binding through the binder', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  t.equal(await bind(h, 'web-0', 'real'), '');
  t.same(h.binder.calls, [{ namespace: 'default', name: 'web-0', uid: 'uid-web-0', nodeName: 'real' }]);
});

void t.test('a failed bind returns Error so kube-scheduler retries', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  h.binder.failWith = new Error('pods "web-0" not found');
  t.match(await bind(h, 'web-0', 'real'), /binding pod default\/web-0 to node real: pods "web-0" not found/);
});

void t.test('a retried bind that already happened succeeds without a second Binding', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ nodeName: 'real', phase: 'Running' }) });
  h.binder.failWith = new Error('conflict: pod already bound');
  t.equal(await bind(h, 'web-0', 'real'), '');
  t.same(h.binder.calls, []);
});

void t.test('a bind to an unknown node fails without touching the API', async (t) => {
  const h = harness();
  t.match(await bind(h, 'web-0', 'ghost'), /not in the extender cache/);
  t.same(h.binder.calls, []);
});

void t.test('concurrent binds to one virtual node launch it once and bind every pod to the real node', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/p0', 'default/p1', 'default/p2'] }) });
  const binds = ['p0', 'p1', 'p2'].map((name) => bind(h, name, 'launchable-a'));
  await settle();
  await settle();
  t.same(h.materializer.calls, ['launchable-a'], 'one launch');
  h.materializer.complete('ip-10-0-0-1.ec2.internal');
  t.same(await Promise.all(binds), ['', '', '']);
  t.same(h.binder.calls.map((c) => `${c.name}→${c.nodeName}`).sort(), [
    'p0→ip-10-0-0-1.ec2.internal', 'p1→ip-10-0-0-1.ec2.internal', 'p2→ip-10-0-0-1.ec2.internal',
  ]);
  // The virtual node is withdrawn once materialised; a late bind still lands on the real node.
  h.view.apply({ kind: 'node-deleted', name: 'launchable-a' });
  t.equal(await bind(h, 'p3', 'launchable-a'), '');
  t.equal(h.binder.calls.at(-1)?.nodeName, 'ip-10-0-0-1.ec2.internal');
  t.equal(h.materializer.calls.length, 1);
});

void t.test('a failed launch is reported and the next bind tries again', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { room: { cpu: '1', memory: '1Gi' } }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ cpu: '800m', memory: '100Mi' }) });
  const first = bind(h, 'web-0', 'launchable-a');
  await settle();
  await settle();
  h.materializer.fail('InsufficientInstanceCapacity for every offering');
  t.match(await first, /materialising virtual node launchable-a: InsufficientInstanceCapacity/);
  // The reservation is released, so the room is whole again for filter.
  const planned = h.view.plan('launchable-a');
  t.same(planned === undefined ? undefined : h.view.roomLeft(planned, 'launchable-a')['cpu'], 1000);
  const second = bind(h, 'web-0', 'launchable-a');
  await settle();
  await settle();
  t.equal(h.materializer.calls.length, 2);
  h.materializer.complete('ip-10-0-0-2.ec2.internal');
  t.equal(await second, '');
});

void t.test('a bind to a virtual node without a materializer fails clearly', async (t) => {
  const { build } = await import('../../extender/app.js');
  const { ClusterState } = await import('../../provisioner/state/cluster-state.js');
  const { Registry } = await import('prom-client');
  const view = new ClusterState();
  view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  const h = harness();
  const app = build({ view, binder: h.binder, registry: new Registry(), logger: false });
  const response = await app.inject({ method: 'POST', url: '/bind', payload: bindArgs('web-0', 'launchable-a') });
  t.match(response.json(), { Error: /has no materializer/ });
});

void t.test('a bind to a virtual node the plan marks as materialised goes straight to the real node', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/late'], room: {}, materializedNode: 'ip-10-0-0-9.ec2.internal' }) });
  t.equal(await bind(h, 'late', 'launchable-a'), '');
  t.same(h.materializer.calls, [], 'no second launch');
  t.equal(h.binder.calls.at(-1)?.nodeName, 'ip-10-0-0-9.ec2.internal');
});

void t.test("a bind gives the pod its node's rank as its pod-deletion-cost, in the Binding itself", async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  h.view.apply({ kind: 'pod-upserted', pod: pod() });
  t.equal(await bind(h, 'web-0', 'real'), '');
  t.same(h.binder.calls, [{ namespace: 'default', name: 'web-0', uid: 'uid-web-0', nodeName: 'real', annotations: { [podDeletionCostKey]: String(scaleInRank('real')) } }]);
});

void t.test('a pod bound through a virtual node is ranked by the real node it lands on', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/web-0'] }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod() });
  const bound = bind(h, 'web-0', 'launchable-a');
  await settle();
  await settle();
  h.materializer.complete('ip-10-0-0-1.ec2.internal');
  t.equal(await bound, '');
  t.same(h.binder.calls.map((c) => c.annotations), [{ [podDeletionCostKey]: String(scaleInRank('ip-10-0-0-1.ec2.internal')) }]);
});

void t.test("a pod with its own pod-deletion-cost keeps it, and --pod-deletion-cost=none binds with no annotation", async (t) => {
  const own = harness();
  own.view.apply({ kind: 'node-upserted', node: node('real') });
  own.view.apply({ kind: 'pod-upserted', pod: pod({ annotations: { [podDeletionCostKey]: '100' } }) });
  t.equal(await bind(own, 'web-0', 'real'), '');
  t.equal(own.binder.calls[0]?.annotations, undefined, "the Binding would overwrite the pod's own value");
  const off = harness({ scaleInRank: false });
  off.view.apply({ kind: 'node-upserted', node: node('real') });
  off.view.apply({ kind: 'pod-upserted', pod: pod() });
  t.equal(await bind(off, 'web-0', 'real'), '');
  t.equal(off.binder.calls[0]?.annotations, undefined);
});

void t.test('a pod kube-scheduler filters and binds before the watch delivers it is ranked from the pod the filter call carried', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  const filtered = await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod(), ['real']) });
  t.equal(filtered.statusCode, 200);
  t.equal(await bind(h, 'web-0', 'real'), '');
  t.same(h.binder.calls.map((c) => c.annotations), [{ [podDeletionCostKey]: String(scaleInRank('real')) }]);
  const own = harness();
  own.view.apply({ kind: 'node-upserted', node: node('real') });
  await own.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod({ annotations: { [podDeletionCostKey]: '7' } }), ['real']) });
  t.equal(await bind(own, 'web-0', 'real'), '');
  t.equal(own.binder.calls[0]?.annotations, undefined, 'its own cost, seen in the filter call, is kept');
});
