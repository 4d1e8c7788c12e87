import { Registry } from 'prom-client';
import t from 'tap';
import type { NodePool, NodePoolStatus } from '../../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import type { Condition } from '../../../domain/api/status-conditions.js';
import { statusCode } from '../../../provisioner/kube/api-status.js';
import type { Lease } from '../../../domain/core/lease.js';
import type { DeploymentStatusView, KarpenterReads } from '../../../provisioner/ports/api-reads.js';
import { KarpenterGuard, karpenterRunningCondition } from '../../../provisioner/takeover/karpenter-guard.js';
import { TakeoverMetrics } from '../../../provisioner/takeover/metrics.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeLeaseApi } from '../../fakes/fake-lease-api.js';
import { nodePool } from '../../fakes/provisioning-builders.js';

const leaseKey = { namespace: 'karpenter', name: 'karpenter-leader-election' };
const deploymentKey = { namespace: 'karpenter', name: 'karpenter' };
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

interface World {
  readonly clock: FakeClock;
  readonly leases: FakeLeaseApi;
  readonly deployments: Map<string, DeploymentStatusView>;
  readonly patches: string[];
  readonly recorder: FakeEventRecorder;
  readonly guard: KarpenterGuard;
  readonly holdLease: (holder: string) => Promise<void>;
  readonly condition: (pool: string) => Condition | undefined;
  readonly gauge: () => Promise<string>;
  readonly reads: () => number;
}

/** The guard over the fake Lease API, one Deployment slot and NodePools whose status patches are applied in place. */
function world(options: { override?: boolean } = {}): World {
  const clock = new FakeClock(Date.parse('2026-11-26T00:00:00Z'));
  const leases = new FakeLeaseApi();
  const deployments = new Map<string, DeploymentStatusView>();
  const pools = new Map<string, NodePool>([['general', nodePool('general')], ['gpu', nodePool('gpu')]]);
  const patches: string[] = [];
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  let reads = 0;
  const api: KarpenterReads = {
    lease: async (key) => {
      reads += 1;
      try {
        return await leases.readNamespacedLease(key);
      } catch (e: unknown) {
        if (statusCode(e) === 404) return undefined;
        throw e;
      }
    },
    deployment: (key) => { reads += 1; return Promise.resolve(deployments.get(`${key.namespace}/${key.name}`)); },
  };
  const writer = {
    patchStatus: (name: string, status: Partial<NodePoolStatus>): Promise<void> => {
      patches.push(name);
      const pool = pools.get(name);
      if (pool !== undefined) pools.set(name, { ...pool, status: { ...pool.status, ...status } });
      return Promise.resolve();
    },
  };
  const guard = new KarpenterGuard({
    reads: api, leases: [leaseKey], deployments: [deploymentKey], nodePools: () => pools.values(), writer, recorder, clock,
    metrics: new TakeoverMetrics(registry), ...(options.override === undefined ? {} : { override: options.override }),
  });
  const holdLease = async (holder: string): Promise<void> => {
    const current = leases.leases.get(`${leaseKey.namespace}/${leaseKey.name}`);
    const body: Lease = { metadata: { ...leaseKey, ...(current?.metadata?.resourceVersion === undefined ? {} : { resourceVersion: current.metadata.resourceVersion }) }, spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: microTime(clock.now()) } };
    if (current === undefined) await leases.createNamespacedLease({ namespace: leaseKey.namespace, body });
    else await leases.replaceNamespacedLease({ ...leaseKey, body });
  };
  const condition = (pool: string): Condition | undefined => pools.get(pool)?.status?.conditions?.find((c) => c.type === karpenterRunningCondition);
  const gauge = async (): Promise<string> => registry.getSingleMetricAsString('nodesmith_takeover_karpenter_running');
  return { clock, leases, deployments, patches, recorder, guard, holdLease, condition, gauge, reads: () => reads };
}

void t.test('nodesmith waits until it has read karpenter\'s lease once', async (t) => {
  const { guard, leases } = world();
  t.ok(guard.isBlocking(), 'nothing is known before the first pass');
  leases.down = true;
  await guard.reconcile();
  t.ok(guard.isBlocking(), 'an API failure before any verdict keeps it waiting');
  leases.down = false;
  await guard.reconcile();
  t.notOk(guard.isBlocking(), 'no Lease and no Deployment: karpenter is not running');
});

void t.test('a held, renewed lease blocks nodesmith and says so on every nodepool; its expiry unblocks it', async (t) => {
  const { clock, guard, holdLease, condition, recorder, gauge } = world();
  await holdLease('karpenter-7d9f-abcde');
  await guard.reconcile();
  t.ok(guard.isBlocking());
  t.match(condition('general'), { status: 'True', reason: 'KarpenterRunning', message: 'Karpenter is running (Lease karpenter/karpenter-leader-election, holder karpenter-7d9f-abcde); nodesmith will not act until it stops' });
  t.match(condition('gpu'), { status: 'True' });
  t.same(recorder.events.map((e) => [e.object.name, e.type, e.reason]), [['general', 'Warning', 'KarpenterRunning'], ['gpu', 'Warning', 'KarpenterRunning']]);
  t.match(await gauge(), /karpenter_running 1/);
  for (let s = 0; s < 6; s++) {
    clock.step(5_000);
    await holdLease('karpenter-7d9f-abcde');
    t.equal((await guard.reconcile()).requeueAfterMs, 5_000);
    t.ok(guard.isBlocking(), 'renewals keep it blocked');
  }
  clock.step(10_000);
  await guard.reconcile();
  t.ok(guard.isBlocking(), 'a lease renewed 10 s ago is still within its 15 s');
  clock.step(6_000);
  await guard.reconcile();
  t.notOk(guard.isBlocking(), 'once the lease expires nodesmith resumes by itself');
  t.match(condition('general'), { status: 'False', reason: 'KarpenterNotRunning' });
  t.match(recorder.events.slice(-2).map((e) => [e.object.name, e.type, e.reason]), [['general', 'Normal', 'KarpenterStopped'], ['gpu', 'Normal', 'KarpenterStopped']]);
  t.match(await gauge(), /karpenter_running 0/);
});

void t.test('a released lease (no holder) unblocks at once', async (t) => {
  const { guard, holdLease } = world();
  await holdLease('karpenter-7d9f-abcde');
  await guard.reconcile();
  await holdLease('');
  await guard.reconcile();
  t.notOk(guard.isBlocking());
});

void t.test('a lease that keeps changing counts as held even when its renew time looks old to our clock', async (t) => {
  const { clock, guard, leases } = world();
  const key = `${leaseKey.namespace}/${leaseKey.name}`;
  const renewAt = (ms: number): Lease => ({ metadata: { ...leaseKey }, spec: { holderIdentity: 'karpenter-skewed', leaseDurationSeconds: 15, renewTime: microTime(ms) } });
  // Karpenter's clock runs a minute behind ours: every renewal it writes is a minute old when we read it.
  leases.leases.set(key, renewAt(clock.now() - 60_000));
  await guard.reconcile();
  for (let s = 0; s < 5; s++) {
    clock.step(5_000);
    leases.leases.set(key, renewAt(clock.now() - 60_000));
    await guard.reconcile();
    t.ok(guard.isBlocking());
  }
  clock.step(20_000);
  await guard.reconcile();
  t.notOk(guard.isBlocking(), 'once it stops changing for a lease duration, it has expired');
});

void t.test('a deployment with ready replicas blocks without a lease; scaled to zero it does not', async (t) => {
  const { guard, deployments, condition } = world();
  deployments.set('karpenter/karpenter', { status: { readyReplicas: 2 } });
  await guard.reconcile();
  t.ok(guard.isBlocking());
  t.match(condition('general'), { message: /Deployment karpenter\/karpenter, 2 ready replicas/ });
  deployments.set('karpenter/karpenter', { status: {} });
  await guard.reconcile();
  t.notOk(guard.isBlocking());
});

void t.test('--ignore-running-karpenter acts anyway but still reports karpenter running', async (t) => {
  const { guard, holdLease, patches, gauge } = world({ override: true });
  await holdLease('karpenter-7d9f-abcde');
  await guard.reconcile();
  t.notOk(guard.isBlocking());
  t.same(patches, [], 'no nodepool says nodesmith stands back, because it does not');
  t.match(await gauge(), /karpenter_running 1/);
});

void t.test('without karpenter, passes write nothing and poll slowly', async (t) => {
  const { guard, patches, recorder, reads } = world();
  const first = await guard.reconcile();
  const second = await guard.reconcile();
  t.same(patches, []);
  t.same(recorder.events, []);
  t.equal(second.requeueAfterMs, 15_000);
  t.equal(first.requeueAfterMs, 15_000);
  t.equal(reads(), 4, 'each pass is one GET per Lease and per Deployment');
});

void t.test('a released lease left behind does not keep the fast pace beyond a minute', async (t) => {
  const { clock, guard, holdLease } = world();
  await holdLease('karpenter-7d9f-abcde');
  t.equal((await guard.reconcile()).requeueAfterMs, 5_000);
  await holdLease('');
  clock.step(5_000);
  t.equal((await guard.reconcile()).requeueAfterMs, 5_000, 'just stopped: it may only be restarting');
  clock.step(60_000);
  t.equal((await guard.reconcile()).requeueAfterMs, 15_000);
});

void t.test('an API failure after a verdict keeps the verdict', async (t) => {
  const { guard, holdLease, leases } = world();
  await holdLease('karpenter-7d9f-abcde');
  await guard.reconcile();
  leases.down = true;
  await guard.reconcile();
  t.ok(guard.isBlocking());
  t.match(guard.blockingReason(), /holder karpenter-7d9f-abcde/);
});
