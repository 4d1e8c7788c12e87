import t from 'tap';
import { podAnnotations } from '../../domain/product-keys.js';
import { workloadOf } from '../../provisioner/state/placement-intents.js';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';

interface HostPriority {
  Host: string;
  Score: number;
}

async function prioritize(h: ReturnType<typeof harness>, payload: unknown): Promise<Record<string, number>> {
  const response = await h.app.inject({ method: 'POST', url: '/prioritize', payload: payload as object });
  if (response.statusCode !== 200) throw new Error(`prioritize answered ${response.statusCode}: ${response.body}`);
  return Object.fromEntries(response.json<HostPriority[]>().map((p) => [p.Host, p.Score]));
}

void t.test('real nodes rank above virtual ones and fuller real nodes above emptier ones', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('empty') });
  h.view.apply({ kind: 'node-upserted', node: node('busy') });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'resident', cpu: '3', memory: '12Gi', nodeName: 'busy', phase: 'Running' }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/web-0'] }) });
  const scores = await prioritize(h, extenderArgs(pod(), ['empty', 'busy', 'launchable-a', 'ghost']));
  t.ok((scores['busy'] ?? 0) > (scores['empty'] ?? 0), 'packing prefers the fuller node');
  t.ok((scores['empty'] ?? 0) > (scores['launchable-a'] ?? 0), 'a real node beats a virtual one');
  t.equal(scores['ghost'], 0);
  for (const score of Object.values(scores)) t.ok(Number.isInteger(score) && score >= 0 && score <= 10);
});

void t.test('finished pods do not count towards packing', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  h.view.apply({ kind: 'node-upserted', node: node('b') });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'done', cpu: '3', memory: '12Gi', nodeName: 'a', phase: 'Succeeded' }) });
  const scores = await prioritize(h, extenderArgs(pod(), ['a', 'b']));
  t.equal(scores['a'], scores['b']);
});

void t.test('a bind in flight to a node makes it fuller for the next pod scored', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  h.view.apply({ kind: 'node-upserted', node: node('b') });
  h.view.reserve('default/binding', 'a', { cpu: 3000, memory: 12 * 2 ** 30, pods: 1 });
  const scores = await prioritize(h, extenderArgs(pod(), ['a', 'b']));
  t.ok((scores['a'] ?? 0) > (scores['b'] ?? 0), 'packing counts the pod on its way to a');
});

void t.test('among virtual nodes the cheaper per pod ranks higher and the assigned one highest', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-cheap') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-cheap', { pricePerHour: 0.4, assignedPods: ['default/a', 'default/b', 'default/c'] }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-dear') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-dear', { pricePerHour: 0.2 }) });
  const scores = await prioritize(h, extenderArgs(pod({ name: 'new' }), ['launchable-cheap', 'launchable-dear']));
  // 0.4 shared by 4 pods is 0.10 per pod; 0.2 for this pod alone is 0.20.
  t.ok((scores['launchable-cheap'] ?? 0) > (scores['launchable-dear'] ?? 0));
  const assigned = await prioritize(h, extenderArgs(pod({ name: 'a' }), ['launchable-cheap', 'launchable-dear']));
  t.equal(assigned['launchable-cheap'], 4);
});

void t.test('capacity-type and NodePool preferences raise matching nodes', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('spot', { labels: { 'karpenter.sh/capacity-type': 'spot', 'karpenter.sh/nodepool': 'batch' } }) });
  h.view.apply({ kind: 'node-upserted', node: node('od', { labels: { 'karpenter.sh/capacity-type': 'on-demand', 'karpenter.sh/nodepool': 'default' } }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-spot') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-spot', { capacityType: 'spot', nodePool: 'batch', pricePerHour: 0.3 }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-od') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-od', { capacityType: 'on-demand', pricePerHour: 0.3 }) });
  const steered = pod({ annotations: { [podAnnotations.capacityTypePreference]: 'spot', [podAnnotations.preferredNodePool]: 'batch' } });
  const scores = await prioritize(h, extenderArgs(steered, ['spot', 'od', 'launchable-spot', 'launchable-od']));
  t.equal((scores['spot'] ?? 0) - (scores['od'] ?? 0), 2);
  t.equal(scores['launchable-spot'], 4);
  t.equal(scores['launchable-od'], 2);
  t.ok((scores['od'] ?? 0) > (scores['launchable-spot'] ?? 0), 'steering never lifts a virtual node above a real one');
});

void t.test('the full-node form is scored by the names of its items', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  const response = await h.app.inject({ method: 'POST', url: '/prioritize', payload: { Pod: pod(), Nodes: { items: [node('a')] } } });
  t.same(response.json(), [{ Host: 'a', Score: 5 }]);
});

void t.test('a pod whose workload a consolidation planned onto a node ranks that node first, until a bind takes the place', async (t) => {
  const h = harness();
  for (const name of ['planned', 'fuller']) h.view.apply({ kind: 'node-upserted', node: node(name) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'resident', cpu: '3', memory: '12Gi', nodeName: 'fuller', phase: 'Running' }) });
  const moved = pod({ name: 'web-1' });
  h.view.apply({ kind: 'pod-upserted', pod: moved });
  h.view.placements.add('underutilized-1', [{ workload: workloadOf(moved, h.view.requestsFor(moved)), node: 'planned' }], Number.MAX_SAFE_INTEGER);
  const before = await prioritize(h, extenderArgs(moved, ['planned', 'fuller']));
  t.equal(before['planned'], 10, 'the planned node gets the top score');
  t.ok((before['fuller'] ?? 0) < 10, 'packing alone would have preferred the fuller node');
  const bound = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'web-1', PodNamespace: 'default', PodUID: 'uid-web-1', Node: 'planned' } });
  t.equal(bound.json<{ Error: string }>().Error, '');
  const after = await prioritize(h, extenderArgs(pod({ name: 'web-2' }), ['planned', 'fuller']));
  t.ok((after['planned'] ?? 0) < (after['fuller'] ?? 0), 'the place was taken: the next pod is packed as usual');
});
