import t from 'tap';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';

interface FilterResult { NodeNames: string[] | null; FailedNodes: Record<string, string> }

/**
 * A node launched for a plan of one 500m pod, 1 CPU in all. The planned pod's bind went to another node (its hold
 * moved there), and kube-scheduler put two pods of 400m straight onto the launched node meanwhile: 800m taken.
 * Then that other bind ended unsent (kube-scheduler stopped waiting): the pod is back on its plan, whose room is gone.
 */
async function lostPlace(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: {}, materializedNode: 'real-a' }) });
  for (const [name, cpu] of [['planned', '500m'], ['direct-0', '400m'], ['direct-1', '400m']] as const) h.view.apply({ kind: 'pod-upserted', pod: pod({ name, cpu, memory: '64Mi' }) });
  h.view.reserve('default/planned', 'real-b', h.view.requestsOf('default/planned') ?? {});
  for (const name of ['direct-0', 'direct-1']) {
    const bound = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: name, PodNamespace: 'default', PodUID: `uid-${name}`, Node: 'real-a' } });
    if (bound.json<{ Error: string }>().Error !== '') throw new Error(`${name} was not bound: ${bound.body}`);
  }
  h.view.release('default/planned');
  return h;
}

async function filter(h: ReturnType<typeof harness>, nodes: string[]): Promise<FilterResult> {
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod({ name: 'planned', cpu: '500m', memory: '64Mi' }), nodes) as object });
  return response.json<FilterResult>();
}

void t.test("a pod whose place on its launched plan's node went to others is refused by the filter, not let through to a bind refused", async (t) => {
  const h = await lostPlace();
  const verdict = await filter(h, ['real-a']);
  t.same(verdict.NodeNames, [], 'the real node is not offered');
  t.match(verdict.FailedNodes['real-a'], /node real-a has no room left for pod default\/planned at its bind \(not enough room beside the pods bound and binding to it: cpu 500m wanted, 200m left\)/);
  t.equal(h.view.refusals.noRoomNode('default/planned'), 'launchable-a', 'the model is told, so the planner plans the pod again');
  t.same(h.binder.calls.map((c) => c.name), ['direct-0', 'direct-1'], 'no Binding for the planned pod');
});

void t.test('through its virtual node too: the plan is not its only choice once the launched node is full', async (t) => {
  const h = await lostPlace();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-b', { cpu: '2', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-b', { assignedPods: [], room: { cpu: '2', memory: '4Gi', pods: '10' } }) });
  const verdict = await filter(h, ['launchable-a', 'launchable-b']);
  t.same(verdict.NodeNames, ['launchable-b'], 'another plan with room takes it');
  t.match(verdict.FailedNodes['launchable-a'], /node real-a has no room left for pod default\/planned at its bind/);
});

void t.test('a bind through the full plan is refused and tells the model too', async (t) => {
  const h = await lostPlace();
  const bound = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'planned', PodNamespace: 'default', PodUID: 'uid-planned', Node: 'launchable-a' } });
  t.match(bound.json<{ Error: string }>().Error, /node real-a has no room left for pod default\/planned at its bind/);
  t.equal(h.view.refusals.noRoomNode('default/planned'), 'launchable-a');
});

void t.test('while the place is there, the plan keeps its pod and nothing is noted', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: {}, materializedNode: 'real-a' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '500m', memory: '64Mi' }) });
  t.same((await filter(h, ['real-a'])).NodeNames, ['real-a']);
  t.same((await filter(h, ['launchable-a'])).NodeNames, ['launchable-a']);
  t.equal(h.view.refusals.noRoomNode('default/planned'), undefined);
});
