import t from 'tap';
import { harness, plan, pod, virtualNode } from './builders.js';

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
