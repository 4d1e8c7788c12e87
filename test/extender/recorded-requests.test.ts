// Replays the requests the real kube-scheduler sent (recorded by test/stack/scheduler-extender.test.ts) through
// the extender, so the schemas are checked against the wire format and not only against our own builders.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { harness, node } from './builders.js';

function fixture(verb: 'filter' | 'prioritize' | 'bind'): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/kube-scheduler/${verb}.json`, import.meta.url), 'utf8'));
}

function withNodes(): ReturnType<typeof harness> {
  const h = harness();
  for (const name of ['kwok-a', 'kwok-b']) h.view.apply({ kind: 'node-upserted', node: node(name, { cpu: '8', memory: '32Gi' }) });
  return h;
}

void t.test('the recorded filter request passes both kwok nodes', async (t) => {
  const h = withNodes();
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: fixture('filter') as object });
  t.equal(response.statusCode, 200, response.body);
  t.same(response.json(), { Nodes: null, NodeNames: ['kwok-a', 'kwok-b'], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
});

void t.test('the recorded prioritize request scores both kwok nodes alike', async (t) => {
  const h = withNodes();
  const response = await h.app.inject({ method: 'POST', url: '/prioritize', payload: fixture('prioritize') as object });
  t.equal(response.statusCode, 200, response.body);
  t.same(response.json(), [{ Host: 'kwok-a', Score: 5 }, { Host: 'kwok-b', Score: 5 }]);
});

void t.test('the recorded bind request binds the pod by name, namespace and UID', async (t) => {
  const h = withNodes();
  const response = await h.app.inject({ method: 'POST', url: '/bind', payload: fixture('bind') as object });
  t.equal(response.statusCode, 200, response.body);
  t.same(response.json(), { Error: '' });
  t.same(h.binder.calls, [{ namespace: 'default', name: 'extended', uid: 'b03635a4-19e8-434d-b09a-c2f941f75f2d', nodeName: 'kwok-b' }]);
});
