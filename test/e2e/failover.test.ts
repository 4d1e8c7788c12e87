// Two replicas of the controller, as the chart runs them: one leads, the other is Ready and answers the extender.
// The leader is SIGKILLed while pods are pending; the standby must take the Lease within its duration (and not
// before: no two leaders), launch for the pods, and nothing may be launched twice.
import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { waitFor } from '../stack/wait-for.js';
import type { FaultProxy } from '../stack/fault-proxy.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';
import type { ProductStack } from './product-stack.js';
import { holds, type Replica } from './replica-set.js';

// The elector's defaults (provisioner/kube/leader-election.ts), which `nodesmith run` uses.
const leaseDurationMs = 15_000;
const retryPeriodMs = 2_000;

/** Each CreateFleet the fault proxy forwards, with the time this test saw it (sampled every 50 ms). */
function recordLaunches(proxy: FaultProxy): { readonly times: number[]; stop(): void } {
  const times: number[] = [];
  let seen = 0;
  const timer = setInterval(() => {
    const count = proxy.actions.filter((a) => a === 'CreateFleet').length;
    for (; seen < count; seen++) times.push(Date.now());
  }, 50);
  return { times, stop: () => { clearInterval(timer); } };
}

async function lease(product: ProductStack): Promise<k8s.V1Lease> {
  return product.kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ name: 'nodesmith-provisioner', namespace: 'nodesmith' });
}

async function isReady(replica: Replica): Promise<boolean> {
  const [health, extender] = await Promise.all([fetch(`${replica.healthUrl}/readyz`), fetch(`${replica.extenderUrl}/readyz`)]);
  return health.ok && extender.ok;
}

/** The sum of a counter's series on a replica's /metrics (0 when it has none yet). */
async function counted(replica: Replica, series: string): Promise<number> {
  const text = await (await fetch(`${replica.healthUrl}/metrics`).catch(() => undefined))?.text() ?? '';
  return text.split('\n').filter((line) => line.startsWith(series)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
const bindsAnswered = (replica: Replica): Promise<number> => counted(replica, 'nodesmith_extender_requests_total{verb="bind",outcome="ok"}');
const nodesLaunched = (replica: Replica): Promise<number> => counted(replica, 'nodesmith_nodes_created_total{');

/** Pods of both Deployments each need a node of their own, so every pending pod needs a launch. */
const apart: k8s.V1Affinity = {
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['warm', 'failover'] }] } }] },
};

void t.test('the standby takes the Lease within its duration after the leader is killed, and the pending pods get nodes, each launched once', async (t) => {
  const product = await withProduct(t, { replicas: 2 });
  const launches = recordLaunches(product.proxy);
  t.teardown(() => { launches.stop(); });

  const holder = await waitFor('a replica to lead', async () => {
    const identity = (await lease(product)).spec?.holderIdentity ?? '';
    return identity === '' ? undefined : identity;
  });
  const leader = product.replicas.find((r) => holds(r, holder));
  const standby = product.replicas.find((r) => !holds(r, holder));
  if (leader === undefined || standby === undefined) throw new Error(`the Lease names ${holder}, not one of the two replicas`);
  t.ok(await isReady(standby), 'the standby is Ready (health and extender) while the other replica leads');
  t.ok(await isReady(leader), 'and so is the leader');

  await standbyHandsLaunchesToLeader(t, product, { leader, standby });
  const launchedBefore = launches.times.length;
  t.equal(launchedBefore, 2, 'one CreateFleet per node the pods need');

  const transitionsBefore = (await lease(product)).spec?.leaseTransitions ?? 0;
  await leader.process.kill();
  const killedAt = Date.now();
  const lastRenew = new Date(String((await lease(product)).spec?.renewTime)).getTime();
  await createDeployment(product, { name: 'failover', replicas: 4, cpu: '1', memory: '1Gi', affinity: apart });

  const taken = await waitFor('the standby to take the Lease', async () => {
    const spec = (await lease(product)).spec;
    return holds(standby, spec?.holderIdentity) ? spec : undefined;
  }, { timeoutMs: 60_000, intervalMs: 100 });
  const tookOverAt = new Date(String(taken.acquireTime)).getTime();
  t.equal(taken.leaseTransitions, transitionsBefore + 1, 'one handover');
  t.ok(tookOverAt - lastRenew >= leaseDurationMs, `the standby waited out the Lease after the dead leader's last renewal (${String(tookOverAt - lastRenew)} ms): never two leaders`);
  // The standby last saw the record change at most one retry period after the renewal, and tries again every period.
  t.ok(tookOverAt - killedAt <= leaseDurationMs + 2 * retryPeriodMs, `it took over within the Lease's duration and its retry periods (${String(tookOverAt - killedAt)} ms after the kill)`);
  t.equal(launches.times.filter((at) => at > killedAt && at < tookOverAt).length, 0, 'nothing was launched while no replica held the Lease');

  // The kubelet restarts the killed container: it comes back as the standby, Ready without leading.
  await leader.process.start();
  t.ok(await isReady(leader), 'the restarted replica is Ready as the standby');
  t.ok(holds(standby, (await lease(product)).spec?.holderIdentity), 'and the new leader keeps the Lease');

  const { pods } = await waitForRunning(product, 'failover', 4, 240_000);
  t.equal(pods.length, 4, 'every pod that was pending at the kill is Running on a node');
  const firstLaunchAfter = launches.times.find((at) => at > killedAt);
  t.ok(firstLaunchAfter !== undefined && firstLaunchAfter >= tookOverAt, 'the first launch after the kill came from the new leader');
  t.equal(launches.times.length - launchedBefore, 4, 'one launch per pod that needed a node: nothing launched twice');
  await expectOneInstancePerClaim(t, product);
  t.comment(`failover: lease taken ${String(tookOverAt - killedAt)} ms after the kill (${String(tookOverAt - lastRenew)} ms after the last renewal); `
    + `no launch for ${String((firstLaunchAfter ?? 0) - (launches.times[launchedBefore - 1] ?? killedAt))} ms (last launch before the kill to the first after), `
    + `first launch ${String((firstLaunchAfter ?? 0) - killedAt)} ms after the kill; binds answered since each replica started: ${(await Promise.all(product.replicas.map(bindsAnswered))).join(' + ')}`);
});

async function expectOneInstancePerClaim(t: Test, product: ProductStack): Promise<void> {
  const claims = (await product.kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: { status?: { providerID?: string } }[] };
  const live = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
  t.equal(live.length, 6, 'six instances for six pods that each need a node');
  const claimed = new Set(claims.items.map((c) => c.status?.providerID?.split('/').at(-1)));
  t.same(live.filter((i) => !claimed.has(i.id)).map((i) => i.id), [], 'every running instance belongs to a NodeClaim');
  const perClaim = new Map<string, number>();
  for (const i of live) perClaim.set(i.tags['karpenter.sh/nodeclaim'] ?? '?', (perClaim.get(i.tags['karpenter.sh/nodeclaim'] ?? '?') ?? 0) + 1);
  t.ok([...perClaim.values()].every((n) => n === 1), `no NodeClaim has two instances: ${JSON.stringify(Object.fromEntries(perClaim))}`);
}

/**
 * kube-proxy picks a replica per connection and kube-scheduler keeps its connections open: here every one lands on
 * the standby, which hands each bind to the leader at the URL the leader published on the Lease: the leader alone
 * launches and binds, so one process checks the room of every bind.
 */
async function standbyHandsLaunchesToLeader(t: Test, product: ProductStack, replicas: { leader: Replica; standby: Replica }): Promise<void> {
  const { leader, standby } = replicas;
  product.extenderService?.routeOnlyTo([product.replicas.indexOf(standby)]);
  await product.apply(product.nodePoolYaml('default', '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }'));
  await createDeployment(product, { name: 'warm', replicas: 2, cpu: '1', memory: '1Gi', affinity: apart });
  await waitForRunning(product, 'warm', 2, 180_000);
  t.equal((await lease(product)).metadata?.annotations?.['nodesmith.io/extender-url'], leader.extenderUrl, "the Lease names the leader's extender");
  t.ok(await bindsAnswered(standby) >= 2, 'the standby answered the binds');
  t.ok(await counted(standby, 'nodesmith_extender_binds_forwarded_total{outcome="bound"}') >= 2, 'by handing them to the leader, which bound them');
  t.ok(await bindsAnswered(leader) >= 2, 'the leader answered the binds handed to it');
  t.equal(await nodesLaunched(standby), 0, 'the standby launched nothing itself');
  t.equal(await nodesLaunched(leader), 2, 'the leader launched both nodes');
  product.extenderService?.routeOnlyTo(undefined);
}
