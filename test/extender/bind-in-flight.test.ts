import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';
import { NotSentError } from '../../provisioner/kube/send-gate.js';

type Harness = ReturnType<typeof harness>;

function bind(h: Harness, name: string, nodeName: string, uid = `uid-${name}`): Promise<string> {
  const payload = { PodName: name, PodNamespace: 'default', PodUID: uid, Node: nodeName };
  return h.app.inject({ method: 'POST', url: '/bind', payload }).then((response) => response.json<{ Error: string }>().Error);
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

function realNodes(h: Harness): void {
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  h.view.apply({ kind: 'node-upserted', node: node('b') });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ cpu: '500m', memory: '256Mi' }) });
}

void t.test("a retried bind to another node is refused while the first is on its way, and the first node keeps the pod's room", async (t) => {
  const h = harness();
  realNodes(h);
  h.binder.holding = true;
  const first = bind(h, 'web-0', 'a');
  await settle();
  t.equal(h.view.reservedOn('a')['cpu'], 500, 'the first bind holds its room on a');

  // kube-scheduler stopped waiting for the first call and placed the pod again, on b.
  t.match(await bind(h, 'web-0', 'b'), /an earlier bind of pod default\/web-0 to node a is still on its way/);
  t.equal(h.view.reservedOn('a')['cpu'], 500, 'a still counts the pod the first Binding may yet put there');
  t.equal(h.view.reservedOn('b')['cpu'], undefined, 'b holds nothing for it');
  t.equal(h.binder.calls.length, 1, 'no second Binding raced the first');

  h.binder.land();
  t.equal(await first, '');
});

void t.test("a retried bind to the same node gets the first bind's outcome, with one Binding", async (t) => {
  const h = harness();
  realNodes(h);
  h.binder.holding = true;
  const first = bind(h, 'web-0', 'a');
  await settle();
  const again = bind(h, 'web-0', 'a');
  await settle();
  h.binder.land();
  t.same(await Promise.all([first, again]), ['', '']);
  t.equal(h.binder.calls.length, 1);
});

void t.test('once the first bind has ended, a bind of the same pod to another node goes ahead', async (t) => {
  const h = harness();
  realNodes(h);
  h.binder.failWith = new Error('the API server timed out');
  t.match(await bind(h, 'web-0', 'a'), /the API server timed out/);
  h.binder.failWith = undefined;
  t.equal(await bind(h, 'web-0', 'b'), '');
  t.same(h.binder.calls.map((call) => call.nodeName), ['a', 'b']);
});

/** Sends a bind over a real connection and closes it, as kube-scheduler does when its httpTimeout passes. */
async function bindAndHangUp(port: number, nodeName: string, hangUp: () => Promise<void>): Promise<void> {
  const body = JSON.stringify({ PodName: 'web-0', PodNamespace: 'default', PodUID: 'uid-web-0', Node: nodeName });
  const call = request({ port, method: 'POST', path: '/bind', headers: { 'content-type': 'application/json' } });
  const closed = new Promise<void>((resolve) => call.on('close', () => { resolve(); }));
  call.on('error', () => undefined);
  call.end(body);
  await hangUp();
  call.destroy();
  await closed;
}

void t.test('a bind kube-scheduler stopped waiting for during the launch is never sent, and its room is given back', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/web-0'] }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ cpu: '500m', memory: '256Mi' }) });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => h.app.close());
  const { port } = h.app.server.address() as AddressInfo;

  await bindAndHangUp(port, 'launchable-a', async () => {
    while (h.materializer.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  });
  // The launch ends after kube-scheduler gave up on this call.
  h.materializer.complete('ip-10-0-0-1.ec2.internal');
  await settle();

  t.same(h.binder.calls, [], 'no Binding was created for a call nobody waits for');
  t.equal(h.view.reservedOn('launchable-a')['cpu'], undefined, 'the virtual node holds nothing for it');
  t.equal(h.view.reservedOn('ip-10-0-0-1.ec2.internal')['cpu'], undefined, 'nor the node it became');
  // kube-scheduler's retry binds the pod to the node that was launched for it.
  t.equal(await bind(h, 'web-0', 'launchable-a'), '');
  t.same(h.binder.calls.map((call) => call.nodeName), ['ip-10-0-0-1.ec2.internal']);
  t.equal(h.binder.calls[0]?.retried, true, 'sent ahead of the binds on their first try: its first waited out kube-scheduler');
});

void t.test('a pod whose Binding waited unsent in the queue until kube-scheduler gave up is sent ahead next time, and only that time', async (t) => {
  const h = harness();
  realNodes(h);
  h.binder.failWith = new NotSentError();
  t.match(await bind(h, 'web-0', 'a'), /kube-scheduler stopped waiting for the bind of pod default\/web-0 to node a before it was sent; not sent/);
  h.binder.failWith = undefined;
  t.equal(await bind(h, 'web-0', 'b'), '');
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'web-1', cpu: '500m', memory: '256Mi' }) });
  t.equal(await bind(h, 'web-1', 'a'), '');
  t.same(h.binder.calls.map((c) => [c.name, c.nodeName, c.retried === true]), [['web-0', 'a', false], ['web-0', 'b', true], ['web-1', 'a', false]]);
});

void t.test('a pod bound before the watch delivers it holds what the filter call said it requests, so the next one finds the node full', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  for (const name of ['run-0', 'run-1', 'run-2']) h.view.apply({ kind: 'pod-upserted', pod: pod({ name, cpu: '1', memory: '1Gi', nodeName: 'real', phase: 'Running' }) });
  // kube-scheduler's pod watch is ahead of the model's: these two reach the extender only in its calls.
  const filter = async (name: string): Promise<string[]> => {
    const response = await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod({ name, cpu: '1', memory: '1Gi' }), ['real']) });
    return response.json<{ NodeNames: string[] }>().NodeNames;
  };
  t.same(await filter('early-0'), ['real'], 'one more 1-CPU pod fits the 4-CPU node');
  t.equal(await bind(h, 'early-0', 'real'), '');
  t.same(await filter('early-1'), [], 'the node is full with the first one counted');
  // A bind on an older verdict is checked against the same count.
  t.match(await bind(h, 'early-1', 'real'), /node real has no room left for pod default\/early-1 at its bind \(.*cpu 1 wanted, 0 left\)/);
  t.same(h.binder.calls.map((call) => call.name), ['early-0']);
});

void t.test("a retry after the first bind landed, before the watch shows the pod bound, keeps the pod's room where it landed", async (t) => {
  const h = harness();
  realNodes(h);
  t.equal(await bind(h, 'web-0', 'a'), '', 'kube-scheduler had stopped waiting, but the Binding landed');
  t.match(await bind(h, 'web-0', 'b'), /pod default\/web-0 was bound to node a by an earlier bind/);
  t.equal(h.view.reservedOn('a')['cpu'], 500, 'a still counts the pod until the watch shows it there');
  t.equal(h.view.reservedOn('b')['cpu'], undefined);
  t.equal(await bind(h, 'web-0', 'a'), '', 'a retry naming the node it landed on succeeds');
  t.equal(h.binder.calls.length, 1, 'and no second Binding was sent');
  // Deleted before the watch showed it bound, and made again under the same name: another UID, another pod.
  h.view.apply({ kind: 'pod-deleted', namespace: 'default', name: 'web-0' });
  const again = pod({ cpu: '500m', memory: '256Mi' });
  h.view.apply({ kind: 'pod-upserted', pod: { ...again, metadata: { ...again.metadata, uid: 'uid-web-0-again' } } });
  t.equal(await bind(h, 'web-0', 'b', 'uid-web-0-again'), '');
  t.same(h.binder.calls.map((call) => call.nodeName), ['a', 'b']);
});
