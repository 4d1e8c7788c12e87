import t from 'tap';
import { harness, node, plan, pod, virtualNode } from './builders.js';

/** A virtual node planned for one pod, with room for one more of 500m beside it. */
function world(): ReturnType<typeof harness> {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '1100m', memory: '4Gi', pods: '10' } }) });
  for (const name of ['planned', 'extra-0', 'extra-1']) h.view.apply({ kind: 'pod-upserted', pod: pod({ name, cpu: '500m', memory: '512Mi' }) });
  return h;
}

const bindArgs = (name: string): Record<string, string> => ({ PodName: name, PodNamespace: 'default', PodUID: `uid-${name}`, Node: 'launchable-a' });

void t.test('of two pods the plan did not place, both let through on the room for one, the second is refused its bind', async (t) => {
  const h = world();
  const first = h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('extra-0') });
  for (let i = 0; i < 5 && h.materializer.pendingCount === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  const second = await h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('extra-1') });
  t.match(second.json<{ Error: string }>().Error, /virtual node launchable-a has no room left for pod default\/extra-1 beside the pods planned for it \(not enough planned room: cpu/,
    'the room was taken by the first: binding it too would put more on the launched node than it holds');
  h.materializer.complete('i-a');
  t.equal((await first).json<{ Error: string }>().Error, '', 'the first is bound');
  t.same(h.binder.calls.map((c) => `${c.name}→${c.nodeName}`), ['extra-0→i-a'], 'and only the first reaches the real node');
});

void t.test("the plan's own pods are bound whatever else came first", async (t) => {
  const h = world();
  const extra = h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('extra-0') });
  const planned = h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('planned') });
  for (let i = 0; i < 5 && h.materializer.pendingCount === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  t.equal(h.materializer.calls.length, 1, 'one launch for both');
  h.materializer.complete('i-a');
  t.same([(await extra).json<{ Error: string }>().Error, (await planned).json<{ Error: string }>().Error], ['', '']);
});

void t.test('a pod placed on a virtual node before its launch is refused its late bind when kube-scheduler filled the real node meanwhile', async (t) => {
  // At 10,000 pods on the real stack: pods kube-scheduler put on a virtual node before the launch bound to the real
  // node after it, while kube-scheduler had also bound pods straight to that real node: 172 pods of 512Mi on 87,943Mi.
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  for (const [name, cpu] of [['planned', '500m'], ['late', '400m'], ['direct', '400m']] as const) h.view.apply({ kind: 'pod-upserted', pod: pod({ name, cpu, memory: '64Mi' }) });
  // The launch: the real node exists, the plan records it and its room is emptied.
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: {}, materializedNode: 'real-a' }) });
  const direct = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'direct', PodNamespace: 'default', PodUID: 'uid-direct', Node: 'real-a' } });
  t.equal(direct.json<{ Error: string }>().Error, '', 'kube-scheduler put a pod straight on the real node, beside the planned one');
  const late = await h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('late') });
  t.match(late.json<{ Error: string }>().Error, /node real-a has no room left for pod default\/late at its bind \(not enough room beside the pods bound and binding to it: cpu 400m wanted, 100m left\)/,
    'the late pod would put 1,300m on a node of 1,000m');
  const planned = await h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('planned') });
  t.equal(planned.json<{ Error: string }>().Error, '', 'the planned pod still has its place');
  t.same(h.binder.calls.map((c) => `${c.name}→${c.nodeName}`), ['direct→real-a', 'planned→real-a'], 'nothing bound beyond what the node holds');
  t.equal(h.view.reservedOn('launchable-a')['cpu'] ?? 0, 0, 'the refused pod holds no room anywhere');
});

void t.test("before the model sees the launched node, late binds are checked against the virtual node's allocatable", async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a', { cpu: '1100m', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '1100m', memory: '4Gi', pods: '10' } }) });
  for (const name of ['planned', 'extra-0', 'extra-1']) h.view.apply({ kind: 'pod-upserted', pod: pod({ name, cpu: '500m', memory: '512Mi' }) });
  const first = h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('extra-0') });
  for (let i = 0; i < 5 && h.materializer.pendingCount === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  h.materializer.complete('i-a');
  t.equal((await first).json<{ Error: string }>().Error, '', 'the first extra pod is bound to the launched node');
  // kube-scheduler let the second through on the room before the launch; its bind arrives after it. i-a is not in the model.
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: {}, materializedNode: 'i-a' }) });
  const second = await h.app.inject({ method: 'POST', url: '/bind', payload: bindArgs('extra-1') });
  t.match(second.json<{ Error: string }>().Error, /node i-a has no room left for pod default\/extra-1 at its bind \(not enough room beside the pods bound and binding to it: cpu 500m wanted, 100m left\)/);
  t.same(h.binder.calls.map((c) => `${c.name}→${c.nodeName}`), ['extra-0→i-a']);
});

void t.test('a resource the real node does not list is left to kube-scheduler at the bind, as in the filter', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  const plain = pod({ name: 'device', cpu: '100m', memory: '64Mi' });
  const withDevice = { ...plain, spec: { ...plain.spec, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '64Mi', 'example.com/widget': '1' } } }] } };
  h.view.apply({ kind: 'pod-upserted', pod: withDevice });
  const bound = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'device', PodNamespace: 'default', PodUID: 'uid-device', Node: 'real-a' } });
  t.equal(bound.json<{ Error: string }>().Error, '', 'bound: kube-scheduler already judged the resource the model does not know');
  t.same(h.binder.calls.map((c) => c.nodeName), ['real-a']);
});
