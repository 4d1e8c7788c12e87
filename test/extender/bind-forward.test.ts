import t from 'tap';
import { Registry } from 'prom-client';
import { serve, type RunningExtender } from '../../extender/serve.js';
import type { BindForwardingOptions } from '../../extender/bind-forward.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { podDeletionCostKey } from '../../domain/karpenter-keys.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { FakeBinder, node, pod } from './builders.js';

interface Replica { readonly running: RunningExtender; readonly view: ClusterState; readonly binder: FakeBinder; readonly registry: Registry }

/** One replica's extender on a port of its own, over a model of one real node of 1 CPU. */
async function replica(options: { forwarding?: BindForwardingOptions; https?: { cert: string | Buffer; key: string | Buffer } } = {}): Promise<Replica> {
  const view = new ClusterState();
  view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  view.markSynced();
  const binder = new FakeBinder();
  const registry = new Registry();
  const running = await serve({ view, binder, registry, logger: false, host: '127.0.0.1', port: 0, ...options });
  return { running, view, binder, registry };
}

async function bind(r: Replica, name: string, headers: Record<string, string> = {}): Promise<string> {
  const reply = await r.running.app.inject({ method: 'POST', url: '/bind', headers, payload: { PodName: name, PodNamespace: 'default', PodUID: `uid-${name}`, Node: 'real-a' } });
  return reply.json<{ Error: string }>().Error;
}

async function forwardedCount(r: Replica, outcome: string): Promise<number> {
  const metric = await r.registry.getSingleMetric('nodesmith_extender_binds_forwarded_total')?.get();
  return metric?.values.find((v) => v.labels['outcome'] === outcome)?.value ?? 0;
}

const sixHundred = (name: string): ReturnType<typeof pod> => pod({ name, cpu: '600m', memory: '64Mi' });

void t.test('two pods that each fit alone, bound through two replicas: the second is handed to the leader, whose check sees the first', async (t) => {
  const leader = await replica();
  const standby = await replica({ forwarding: { leaderUrl: () => leader.running.url } });
  t.teardown(async () => { await standby.running.close(); await leader.running.close(); });
  for (const r of [leader, standby]) for (const name of ['first', 'second']) r.view.apply({ kind: 'pod-upserted', pod: sixHundred(name) });
  t.equal(await bind(leader, 'first'), '', 'the leader binds the first');
  // The standby's watch has not shown the first bound: alone, its own check would pass the second.
  const error = await bind(standby, 'second');
  t.match(error, /node real-a has no room left for pod default\/second at its bind \(not enough room beside the pods bound and binding to it: cpu 600m wanted, 400m left\)/);
  t.same(leader.binder.calls.map((c) => c.name), ['first'], 'one Binding in all, by the leader');
  t.same(standby.binder.calls, [], 'the standby sends no Binding of its own');
  t.equal(await forwardedCount(standby, 'refused'), 1);
});

void t.test("a pod the leader's watch has not delivered is judged by what the standby knew of it, and keeps its own deletion cost", async (t) => {
  const leader = await replica();
  const standby = await replica({ forwarding: { leaderUrl: () => leader.running.url } });
  t.teardown(async () => { await standby.running.close(); await leader.running.close(); });
  const small = pod({ name: 'small', cpu: '100m', memory: '64Mi' });
  const own = { ...small, metadata: { ...small.metadata, annotations: { [podDeletionCostKey]: '-7' } } };
  standby.view.apply({ kind: 'pod-upserted', pod: own });
  standby.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'large', cpu: '2', memory: '64Mi' }) });
  t.match(await bind(standby, 'large'), /no room left for pod default\/large at its bind \(.*cpu 2 wanted, 1 left\)/, 'refused by its requests, not bound blind');
  standby.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'plain', cpu: '100m', memory: '64Mi' }) });
  t.equal(await bind(standby, 'small'), '');
  t.equal(await bind(standby, 'plain'), '');
  const costs = new Map(leader.binder.calls.map((c) => [c.name, c.annotations?.[podDeletionCostKey]]));
  t.same([...costs.keys()], ['small', 'plain']);
  t.equal(costs.get('small'), undefined, 'a pod with a cost of its own gets no rank written over it');
  t.match(costs.get('plain'), /^-?\d+$/, 'a pod without one gets its node\'s rank');
  t.equal(await forwardedCount(standby, 'bound'), 2);
});

void t.test('with the leader unreachable the bind fails, naming it, and nothing is bound here', async (t) => {
  const gone = await replica();
  const url = gone.running.url;
  await gone.running.close();
  const standby = await replica({ forwarding: { leaderUrl: () => url } });
  t.teardown(() => standby.running.close());
  standby.view.apply({ kind: 'pod-upserted', pod: sixHundred('lonely') });
  t.match(await bind(standby, 'lonely'), new RegExp(`the leader's extender at ${url} did not answer the bind: .*; kube-scheduler retries the pod`));
  t.same(standby.binder.calls, []);
  t.equal(await forwardedCount(standby, 'unanswered'), 1);
});

void t.test('a bind handed over is bound where it arrives, never handed on (the Lease may have moved meanwhile)', async (t) => {
  const elsewhere = await replica();
  const receiver = await replica({ forwarding: { leaderUrl: () => elsewhere.running.url } });
  t.teardown(async () => { await receiver.running.close(); await elsewhere.running.close(); });
  receiver.view.apply({ kind: 'pod-upserted', pod: sixHundred('handed') });
  t.equal(await bind(receiver, 'handed', { 'x-nodesmith-forwarded': '1' }), '');
  t.same(receiver.binder.calls.map((c) => c.name), ['handed']);
  t.same(elsewhere.binder.calls, []);
  t.equal(await bind(receiver, 'handed'), '', 'and without the mark, this replica binds when no other leads');
});

void t.test('over HTTPS the leader must present the certificate this replica serves: another server gets nothing', async (t) => {
  const ours = await issueLocalCertificates();
  const theirs = await issueLocalCertificates();
  const leader = await replica({ https: { cert: ours.serving.cert, key: ours.serving.key } });
  const impostor = await replica({ https: { cert: theirs.serving.cert, key: theirs.serving.key } });
  const toLeader = await replica({ forwarding: { leaderUrl: () => leader.running.url, servedCert: () => ours.serving.cert } });
  const toImpostor = await replica({ forwarding: { leaderUrl: () => impostor.running.url, servedCert: () => ours.serving.cert } });
  t.teardown(async () => { for (const r of [toLeader, toImpostor, leader, impostor]) await r.running.close(); });
  for (const r of [toLeader, toImpostor]) r.view.apply({ kind: 'pod-upserted', pod: sixHundred('secure') });
  t.match(await bind(toImpostor, 'secure'), /presented a certificate other than the one this replica serves/);
  t.same(impostor.binder.calls, [], 'the impostor received no bind');
  t.equal(await bind(toLeader, 'secure'), '');
  t.same(leader.binder.calls.map((c) => c.name), ['secure']);
});
