import t from 'tap';
import { Registry } from 'prom-client';
import { build } from '../../extender/app.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { extenderArgs, FakeBinder, harness, node, pod } from './builders.js';

void t.test('readyz waits for the view to sync while healthz answers at once', async (t) => {
  const view = new ClusterState();
  const app = build({ view, binder: new FakeBinder(), registry: new Registry(), logger: false });
  t.equal((await app.inject('/healthz')).statusCode, 200);
  t.equal((await app.inject('/readyz')).statusCode, 503);
  view.apply({ kind: 'synced' });
  t.equal((await app.inject('/readyz')).statusCode, 200);
});

void t.test('metrics count calls and durations by verb and outcome', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod(), ['a']) });
  await h.app.inject({ method: 'POST', url: '/prioritize', payload: extenderArgs(pod(), ['a']) });
  await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'x', PodNamespace: 'y', PodUID: 'z', Node: 'ghost' } });
  const text = (await h.app.inject('/metrics')).body;
  t.match(text, /nodesmith_extender_requests_total\{verb="filter",outcome="ok"\} 1/);
  t.match(text, /nodesmith_extender_requests_total\{verb="prioritize",outcome="ok"\} 1/);
  t.match(text, /nodesmith_extender_requests_total\{verb="bind",outcome="error"\} 1/);
  t.match(text, /nodesmith_extender_request_duration_seconds_count\{verb="filter",outcome="ok"\} 1/);
});
