import t from 'tap';
import { ConsolidationMethod } from '../../../provisioner/disruption/consolidation-method.js';
import { DriftMethod } from '../../../provisioner/disruption/drift-method.js';
import { EmptinessMethod } from '../../../provisioner/disruption/emptiness.js';
import { StaticDriftMethod } from '../../../provisioner/disruption/static-drift-method.js';
import { StaticLaunches } from '../../../provisioner/static/static-launches.js';
import { FakeClock } from '../../../domain/clock.js';
import { ConsolidatableWriter } from '../../../provisioner/disruption/consolidatable-writer.js';
import { PodEventTracker } from '../../../provisioner/disruption/pod-events.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';
import { candidate, cluster, launched, methodContext, pool, priceOf, types } from './consolidation-fixtures.js';
import { Harness, appPod, initializedClaim, managedNode, t0 } from './harness.js';

const staticDrift = (): StaticDriftMethod => new StaticDriftMethod({ launches: new StaticLaunches(), instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set() });
const methods = (): (EmptinessMethod | StaticDriftMethod | DriftMethod)[] => [new EmptinessMethod(), staticDrift(), new DriftMethod()];

void t.test('a drifted node of a static pool is replaced one for one from the template, under the Drifted budget, before it is drained', async (t) => {
  const h = new Harness({ pools: [{ replicas: 2, disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1' }] } }], methods });
  await h.addNode('i-a', initializedClaim('nc-a', 'i-a', ['Drifted']), [appPod('cart-0', 'i-a')]);
  await h.addNode('i-b', initializedClaim('nc-b', 'i-b', ['Drifted']), [appPod('cart-1', 'i-b'), appPod('cart-2', 'i-b')]);
  await h.controller.reconcile();
  t.equal(h.launcher.launched.length, 1, 'one replacement: the budget allows one node at a time');
  const [replacement] = h.launcher.launched;
  t.same(replacement?.pods, [], 'the replacement is the template\'s node, not one sized for the pods');
  t.equal(replacement?.instanceTypes[0], 't3.medium', 'the cheapest type the template allows');
  const tainted = ['i-a', 'i-b'].filter((n) => h.isTainted(n));
  t.equal(tainted.length, 1);
  await h.initialize('replacement-1', 'i-repl1');
  await h.controller.reconcile();
  t.ok(await h.isDeleting(tainted[0] === 'i-a' ? 'nc-a' : 'nc-b'), 'the drifted node goes once its replacement is initialized');
  t.same(h.disrupted.map((d) => d.split(':')[1]), ['drifted']);
});

void t.test('drifted static nodes wait while a scale-down of their pool is not done', async (t) => {
  const h = new Harness({ pools: [{ replicas: 1 }], methods });
  await h.addNode('i-a', initializedClaim('nc-a', 'i-a', ['Drifted']), [appPod('cart-0', 'i-a')]);
  await h.addNode('i-b', initializedClaim('nc-b', 'i-b', ['Drifted']), [appPod('cart-1', 'i-b')]);
  await h.run(30_000);
  t.equal(h.launcher.launched.length, 0);
  t.notOk(h.isTainted('i-a') || h.isTainted('i-b'));
});

void t.test('limits.nodes holds a static replacement back when the pool is at its limit', async (t) => {
  const h = new Harness({ pools: [{ replicas: 1, limits: { nodes: '1' } }], methods });
  await h.addNode('i-a', initializedClaim('nc-a', 'i-a', ['Drifted']), [appPod('cart-0', 'i-a')]);
  await h.run(30_000);
  t.equal(h.launcher.launched.length, 0, 'a replacement would make 2 nodes of a pool limited to 1');
});

void t.test('emptiness and ordinary drift leave a static pool\'s nodes alone', async (t) => {
  const h = new Harness({ pools: [{ replicas: 2, disruption: { consolidateAfter: '0s' } }], methods: () => [new EmptinessMethod(), new DriftMethod()] });
  await h.addNode('i-empty', initializedClaim('nc-empty', 'i-empty', ['Consolidatable']));
  await h.addNode('i-drifted', initializedClaim('nc-drifted', 'i-drifted', ['Drifted']), [appPod('cart-0', 'i-drifted')]);
  await h.run(60_000);
  t.notOk(await h.isDeleting('nc-empty'), 'an empty static node stays: the pool keeps its replicas');
  t.equal(h.launcher.launched.length, 0, 'no simulation-sized replacement for a static node');
  t.notOk(await h.isDeleting('nc-drifted'));
});

void t.test('consolidation never takes a static pool\'s node, and says why', async (t) => {
  const base = pool();
  const staticPool = { ...base, spec: { ...base.spec, replicas: 2 } };
  const nodes = [launched('spare', 'm5.large', ['500m']), launched('host', 'm5.xlarge', ['500m'])];
  const state = cluster(nodes, [staticPool]);
  const method = new ConsolidationMethod('single', { clock: { now: () => 0, sleep: () => Promise.resolve() }, priceOf, instanceTypes: () => types, unavailableOfferings: () => new Set(), options: { spotToSpot: false } });
  const context = methodContext(state, 3_600_000);
  const candidates = nodes.map((n) => candidate(state, n));
  t.same(candidates.map((c) => method.shouldDisrupt(c, context)), [false, false]);
  const findings = await method.findings(candidates, context, { explainAll: true, remember: false });
  t.equal(findings.command, undefined);
  t.match(findings.notConsolidated, [{ nodeName: 'spare', reason: 'NodePool default is static (spec.replicas): its nodes are never consolidated' }, { nodeName: 'host' }]);
});

void t.test('a static pool\'s NodeClaims are never marked Consolidatable, as in Karpenter', async (t) => {
  const clock = new FakeClock(t0);
  const state = stateWith({ nodePools: [nodePool('default', { replicas: 1, disruption: { consolidateAfter: '0s' } })], nodeClasses: [nodeClass()], nodes: [managedNode('i-1')] });
  const store = new InMemoryNodeClaimStore(clock);
  await store.create(initializedClaim('nc-1', 'i-1'));
  for (const c of await store.list()) state.upsertNodeClaim(c);
  const writer = new ConsolidatableWriter({ state, clock, podEvents: new PodEventTracker(state, clock), store: { get: (n) => store.get(n), patchStatus: (n, s, o) => store.patchStatus(n, s, o) } });
  await writer.reconcile();
  t.equal((await store.get('nc-1'))?.status?.conditions?.find((c) => c.type === 'Consolidatable'), undefined);
});
