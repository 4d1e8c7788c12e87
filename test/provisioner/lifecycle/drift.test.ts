import { Registry } from 'prom-client';
import t from 'tap';
import type { EC2NodeClass } from '../../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import type { LaunchedWith, ResolvedNow } from '../../../domain/disruption/resolved-drift.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { nodePoolHashKey, nodePoolHashVersionKey } from '../../../domain/karpenter-keys.js';
import { driftStamps } from '../../../provisioner/launch/nodeclaim-objects.js';
import { findCondition } from '../../../domain/api/status-conditions.js';
import { DriftController } from '../../../provisioner/lifecycle/drift.js';
import type { ResolvedDriftFacts } from '../../../provisioner/lifecycle/drift-facts.js';
import { LifecycleMetrics } from '../../../provisioner/metrics.js';
import { condition, nodeClaim } from '../../fakes/builders.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

const hour = 3_600_000;

/** Resolved facts the test sets directly, counting how often the controller asks. */
class FakeFacts implements ResolvedDriftFacts {
  resolvedNow: ResolvedNow | undefined;
  readonly launchedBy = new Map<string, LaunchedWith>();
  asked = 0;

  resolved(): Promise<ResolvedNow | undefined> {
    this.asked += 1;
    return Promise.resolve(this.resolvedNow);
  }

  /** What EC2 says when read again, where it differs from the cached description. */
  readonly freshLaunchedBy = new Map<string, LaunchedWith>();

  launchedWith(providerID: string, options: { fresh?: boolean } = {}): Promise<LaunchedWith | undefined> {
    const fresh = options.fresh === true ? this.freshLaunchedBy.get(providerID) : undefined;
    return Promise.resolve(fresh ?? this.launchedBy.get(providerID));
  }
}

interface World {
  clock: FakeClock;
  store: InMemoryNodeClaimStore;
  pools: Map<string, NodePool>;
  classes: Map<string, EC2NodeClass>;
  catalog: Map<string, InstanceType>;
  facts: FakeFacts;
  recorder: FakeEventRecorder;
  registry: Registry;
  controller: DriftController;
}

function world(): World {
  const clock = new FakeClock(10 * hour);
  const store = new InMemoryNodeClaimStore(clock);
  const pools = new Map([['default', nodePool()]]);
  const classes = new Map([['default', nodeClass()]]);
  const catalog = new Map<string, InstanceType>();
  const facts = new FakeFacts();
  const recorder = new FakeEventRecorder();
  const registry = new Registry();
  const controller = new DriftController({
    store, clock, recorder, facts, metrics: new LifecycleMetrics(registry),
    reads: { nodePool: (n) => pools.get(n), nodeClass: (n) => classes.get(n), catalog: () => catalog },
  });
  return { clock, store, pools, classes, catalog, facts, recorder, registry, controller };
}

const launchedLabels = { 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-east-1a', 'karpenter.sh/capacity-type': 'on-demand', 'kubernetes.io/arch': 'amd64' };

/** A launched NodeClaim made from the world's NodePool and EC2NodeClass as they are now. */
async function launched(w: World, name: string, extra: { launched?: boolean; imageID?: string } = {}): Promise<void> {
  const base = nodeClaim({ name, providerID: `aws:///us-east-1a/i-${name}`, labels: launchedLabels, conditions: extra.launched === false ? [] : [condition('Launched', 'True', w.clock.now())] });
  const claim: NodeClaim = {
    ...base,
    metadata: { ...base.metadata, annotations: driftStamps(w.pools.get('default') ?? nodePool(), w.classes.get('default')) },
    status: { ...base.status, ...(extra.imageID === undefined ? {} : { imageID: extra.imageID }) },
  };
  await w.store.create(claim);
}

async function drifted(w: World, name: string): Promise<{ status?: string; reason?: string; message?: string }> {
  const claim = await w.store.get(name);
  const c = claim === undefined ? undefined : findCondition(claim, 'Drifted');
  return c === undefined ? {} : { status: c.status, reason: c.reason, message: c.message };
}

void t.test('a NodeClaim made from the current NodePool and EC2NodeClass is not drifted, and the check comes back in 5 minutes', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  const result = await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {});
  t.equal(result.requeueAfterMs, 300_000);
  t.same(w.recorder.events, []);
});

void t.test('a NodePool template label change drifts its NodeClaims, and reverting it clears the condition', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  await launched(w, 'nc-2');
  const original = w.pools.get('default') ?? nodePool();
  w.pools.set('default', nodePool('default', { template: { metadata: { labels: { team: 'shop' } }, spec: original.spec.template.spec } }));
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { status: 'True', reason: 'NodePoolDrifted' });
  t.match(await drifted(w, 'nc-2'), { status: 'True', reason: 'NodePoolDrifted' });
  t.same(w.recorder.events.map((e) => `${e.object.name} ${e.reason}`), ['nc-1 Drifted', 'nc-2 Drifted']);
  t.match(await w.registry.getSingleMetricAsString('nodesmith_nodeclaims_drifted_total'), /type="NodePoolDrifted",nodepool="default"} 2/);

  await w.controller.reconcile();
  t.equal(w.recorder.events.length, 2, 'a NodeClaim already drifted for the same reason is not written or reported again');

  w.pools.set('default', original);
  w.controller.noteChange('nodepool', 'default');
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {}, 'the Drifted condition is removed once the NodeClaim matches again');
});

void t.test('a NodeClaim that has not launched is never drifted: its instance labels are not there yet', async (t) => {
  const w = world();
  await launched(w, 'nc-1', { launched: false });
  w.pools.set('default', nodePool('default', { template: { metadata: { labels: { team: 'shop' } }, spec: (w.pools.get('default') ?? nodePool()).spec.template.spec } }));
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {});
});

void t.test('a hash stamp of another version is re-stamped with the current hash instead of drifting', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  await w.store.addAnnotations('nc-1', { [nodePoolHashKey]: 'an-old-scheme', [nodePoolHashVersionKey]: 'v1' });
  await w.controller.reconcile();
  const claim = await w.store.get('nc-1');
  t.same(await drifted(w, 'nc-1'), {});
  t.equal(claim?.metadata.annotations?.[nodePoolHashVersionKey], 'nodesmith-v3');
  t.equal(claim?.metadata.annotations?.[nodePoolHashKey], driftStamps(w.pools.get('default') ?? nodePool(), undefined)[nodePoolHashKey]);
});

void t.test('narrowed NodePool requirements drift only the NodeClaims outside them', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  const pool = w.pools.get('default') ?? nodePool();
  w.pools.set('default', nodePool('default', { template: { spec: { ...pool.spec.template.spec, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] } } }));
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { status: 'True', reason: 'RequirementsDrifted', message: /karpenter.sh\/capacity-type=on-demand/ });
});

void t.test('a requirement the API should have refused is reported as an Event and the other NodeClaims are still checked', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  const good = w.pools.get('default') ?? nodePool();
  const bad = nodePool('broken', { template: { spec: { ...good.spec.template.spec, requirements: [{ key: 'team', operator: 'Near', values: ['x'] }] } } });
  w.pools.set('broken', bad);
  await w.store.create(nodeClaim({ name: 'nc-broken', labels: { ...launchedLabels, 'karpenter.sh/nodepool': 'broken' }, conditions: [condition('Launched', 'True', 0)] }));
  w.classes.set('default', { ...nodeClass(), spec: { ...nodeClass().spec, userData: 'echo changed' } });
  await w.controller.reconcile();
  t.match(w.recorder.events.find((e) => e.object.name === 'nc-broken'), { type: 'Warning', reason: 'DriftCheckFailed', message: /Near/ });
  t.match(await drifted(w, 'nc-1'), { reason: 'NodeClassDrift' }, 'the healthy NodeClaim was checked after the broken one');
});

void t.test('an instance type no longer offered drifts the NodeClaim only once it is an hour old', async (t) => {
  const w = world();
  for (const type of fewInstanceTypes) w.catalog.set(type.name, type);
  w.catalog.delete('m5.large');
  await launched(w, 'nc-1');
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {}, 'a young NodeClaim is left alone');
  w.clock.step(hour);
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'InstanceTypeNotFound', message: /m5.large/ });
});

void t.test('an AMI no longer selected drifts the NodeClaim with AMIDrift; an unresolvable EC2NodeClass drifts nothing', async (t) => {
  const w = world();
  await launched(w, 'nc-1', { imageID: 'ami-old' });
  w.facts.launchedBy.set('aws:///us-east-1a/i-nc-1', { imageId: 'ami-old', subnetId: 'subnet-a', securityGroupIds: ['sg-1'] });
  w.facts.resolvedNow = undefined;
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {});

  w.facts.resolvedNow = { amiIds: new Set(['ami-new']), subnetIds: new Set(['subnet-a']), securityGroupIds: new Set(['sg-1']) };
  w.clock.step(300_000); // nothing in the cluster changed: the periodic recheck sees it
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'AMIDrift', message: /ami-old.*ami-new/ });
});

void t.test('a subnet or security group set no longer selected drifts with SubnetDrift or SecurityGroupDrift', async (t) => {
  const w = world();
  await launched(w, 'nc-1', { imageID: 'ami-1' });
  w.facts.launchedBy.set('aws:///us-east-1a/i-nc-1', { subnetId: 'subnet-a', securityGroupIds: ['sg-1'] });
  w.facts.resolvedNow = { amiIds: new Set(['ami-1']), subnetIds: new Set(['subnet-b']), securityGroupIds: new Set(['sg-1']) };
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'SubnetDrift' });
  w.facts.resolvedNow = { amiIds: new Set(['ami-1']), subnetIds: new Set(['subnet-a']), securityGroupIds: new Set(['sg-1', 'sg-2']) };
  w.controller.noteChange('ec2nodeclass', 'default');
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'SecurityGroupDrift', message: /sg-1, sg-2/ });
});

void t.test('a NodeClaim outside the placement group its class now selects drifts with PlacementGroupDrift, read from its label', async (t) => {
  const w = world();
  await launched(w, 'nc-1', { imageID: 'ami-1' });
  w.facts.resolvedNow = { amiIds: new Set(['ami-1']), subnetIds: new Set(), securityGroupIds: new Set(), placementGroupId: 'pg-1' };
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'PlacementGroupDrift', message: /outside any placement group/ });
  await w.store.addLabels('nc-1', { 'karpenter.k8s.aws/placement-group-id': 'pg-1' });
  w.controller.noteChange('nodeclaim', 'nc-1');
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {}, 'labelled with the group: in it');
});

void t.test('a NodeClaim another writer changed since it was read is tried again a second later', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  const stale = await w.store.get('nc-1');
  await w.store.addLabels('nc-1', { moved: 'on' });
  w.pools.set('default', nodePool('default', { template: { metadata: { labels: { team: 'shop' } }, spec: (w.pools.get('default') ?? nodePool()).spec.template.spec } }));
  const controller = new DriftController({
    store: { list: () => Promise.resolve(stale === undefined ? [] : [stale]), patchStatus: (n, s, o) => w.store.patchStatus(n, s, o), addAnnotations: (n, a) => w.store.addAnnotations(n, a) },
    reads: { nodePool: (n) => w.pools.get(n), nodeClass: (n) => w.classes.get(n), catalog: () => w.catalog },
    facts: w.facts, clock: w.clock, recorder: w.recorder,
  });
  const result = await controller.reconcile();
  t.equal(result.requeueAfterMs, 1000);
  t.same(await drifted(w, 'nc-1'), {}, 'nothing was overwritten');
  t.same(w.recorder.events, []);
});

void t.test('deleting NodeClaims and NodeClaims of a NodePool that is gone are left alone', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  await w.store.addFinalizer('nc-1', 'karpenter.sh/termination');
  await w.store.delete('nc-1');
  await w.store.create(nodeClaim({ name: 'nc-orphan', labels: { ...launchedLabels, 'karpenter.sh/nodepool': 'gone' }, conditions: [condition('Launched', 'True', 0)] }));
  w.pools.set('default', nodePool('default', { template: { metadata: { labels: { team: 'shop' } }, spec: (w.pools.get('default') ?? nodePool()).spec.template.spec } }));
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {});
  t.same(await drifted(w, 'nc-orphan'), {});
  t.equal(w.facts.asked, 0, 'no resolution was asked for');
});

void t.test('after a full pass only the NodeClaims that changed are checked, until the next full recheck', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  await launched(w, 'nc-2');
  await w.controller.reconcile();
  w.clock.step(60_000);
  w.pools.set('default', nodePool('default', { template: { metadata: { labels: { team: 'shop' } }, spec: (w.pools.get('default') ?? nodePool()).spec.template.spec } }));
  w.controller.noteChange('nodeclaim', 'nc-1');
  const result = await w.controller.reconcile();
  t.match(await drifted(w, 'nc-1'), { reason: 'NodePoolDrifted' });
  t.same(await drifted(w, 'nc-2'), {}, 'an unchanged NodeClaim waits for the full recheck');
  t.equal(result.requeueAfterMs, 240_000, 'the next pass is the full recheck, 5 minutes after the last one');
  w.clock.step(240_000);
  await w.controller.reconcile();
  t.match(await drifted(w, 'nc-2'), { reason: 'NodePoolDrifted' });
});

void t.test('a GPU node running the standard image has drifted although that image is still selected', async (t) => {
  const w = world();
  const gpuCount = 'karpenter.k8s.aws/instance-gpu-count';
  const requirements = (variant: 'Exists' | 'DoesNotExist'): { key: string; operator: string; values?: string[] }[] => [
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    { key: gpuCount, operator: variant },
  ];
  const base = w.classes.get('default') ?? nodeClass();
  w.classes.set('default', { ...base, status: { amis: [{ id: 'ami-std', requirements: requirements('DoesNotExist') }, { id: 'ami-nvidia', requirements: requirements('Exists') }] } });
  w.facts.resolvedNow = { amiIds: new Set(['ami-std', 'ami-nvidia']), subnetIds: new Set(['subnet-a']), securityGroupIds: new Set(['sg-1']) };
  await launched(w, 'nc-1', { imageID: 'ami-std' });
  const gpu = nodeClaim({ name: 'nc-gpu', providerID: 'aws:///us-east-1a/i-nc-gpu', labels: { ...launchedLabels, [gpuCount]: '1' }, conditions: [condition('Launched', 'True', w.clock.now())] });
  await w.store.create({ ...gpu, metadata: { ...gpu.metadata, annotations: driftStamps(w.pools.get('default') ?? nodePool(), w.classes.get('default')) }, status: { ...gpu.status, imageID: 'ami-std' } });
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {}, 'the standard type keeps its standard image');
  t.match(await drifted(w, 'nc-gpu'), { reason: 'AMIDrift', message: /ami-std.*ami-nvidia/ });
});

void t.test('a node whose reservation ended is not drifted when EC2, read again, says it left the reservation; one still in it is', async (t) => {
  const w = world();
  await launched(w, 'nc-1');
  await launched(w, 'nc-2');
  w.facts.resolvedNow = { amiIds: new Set(), subnetIds: new Set(), securityGroupIds: new Set(), capacityReservationIds: new Set() };
  w.facts.launchedBy.set('aws:///us-east-1a/i-nc-1', { capacityReservationId: 'cr-ended' });
  w.facts.freshLaunchedBy.set('aws:///us-east-1a/i-nc-1', {});
  w.facts.launchedBy.set('aws:///us-east-1a/i-nc-2', { capacityReservationId: 'cr-unselected' });
  await w.controller.reconcile();
  t.same(await drifted(w, 'nc-1'), {}, 'the cached description was stale: the instance runs on-demand now');
  t.match(await drifted(w, 'nc-2'), { status: 'True', reason: 'CapacityReservationDrift' });
});
