import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { conditionTypes, findCondition } from '../../../domain/api/status-conditions.js';
import { FakeClock } from '../../../domain/clock.js';
import type { Node } from '../../../domain/core/node.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { ControllerRunner, type Controller } from '../../../provisioner/runtime/controller-runner.js';
import { RegistrationController } from '../../../provisioner/lifecycle/registration.js';
import { wakeRegistrationOnProgress } from '../../../provisioner/lifecycle/registration-wake.js';
import { ModelNodeClaimStore, modelNodeApi } from '../../../provisioner/ports/model-ports.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { condition, node, nodeClaim } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';

const providerID = 'aws:///us-east-1a/i-00000000000000001';

interface World {
  readonly clock: FakeClock;
  readonly store: InMemoryNodeClaimStore;
  readonly cluster: FakeCluster;
  readonly state: ClusterState;
  readonly runner: ControllerRunner;
  /** Registration passes run so far. */
  passes(): number;
  /** A Node as the API server now has it, delivered to the model by its watch. */
  nodeIs(n: Node): void;
  /** The NodeClaim as the store now has it, delivered to the model by its watch. */
  claimChanged(name: string): Promise<NodeClaim | undefined>;
}

function world(): World {
  const clock = new FakeClock(1_000_000);
  const store = new InMemoryNodeClaimStore(clock);
  const cluster = new FakeCluster();
  const state = stateWith({});
  // As wired in production: reads from the model, writes to the API server (here the store and the fake cluster).
  const registration = new RegistrationController({ store: new ModelNodeClaimStore(state, store), nodes: modelNodeApi(state, cluster), clock });
  let passes = 0;
  const counted: Controller = { name: registration.name, reconcile: () => { passes += 1; return registration.reconcile(); } };
  const runner = new ControllerRunner({ clock, controllers: [counted] });
  wakeRegistrationOnProgress(state, () => { runner.wake(registration.name); });
  return {
    clock, store, cluster, state, runner,
    passes: () => passes,
    nodeIs: (n) => { cluster.addNode(n); state.upsertNode(n); },
    claimChanged: async (name) => {
      const claim = await store.get(name);
      if (claim !== undefined) state.upsertNodeClaim(claim);
      return claim;
    },
  };
}

async function registered(store: InMemoryNodeClaimStore): Promise<string | undefined> {
  const claim = await store.get('nc-1');
  return claim === undefined ? undefined : findCondition(claim, conditionTypes.registered)?.status;
}

/** The materializer's launch: the NodeClaim gets its providerID and Launched, then its Node is created, not Ready yet. */
async function launch(w: World): Promise<void> {
  await w.store.patchStatus('nc-1', { providerID, conditions: [condition('Launched', 'True', w.clock.now())] });
  await w.claimChanged('nc-1');
  w.nodeIs(node({ name: 'ip-10-0-0-1', providerID, ready: false }));
}

void t.test('a NodeClaim launched while registration idles is Registered as soon as its Node turns Ready, not at the next idle pass', async (t) => {
  const w = world();
  await w.store.create(nodeClaim({ name: 'nc-1', finalizers: [terminationFinalizer] }));
  await w.claimChanged('nc-1');
  t.equal(await w.runner.runDue(), 10_000, 'nothing launched yet: registration idles for 10 s');

  w.clock.step(1_000);
  await launch(w);
  await w.runner.runDue();
  t.equal(await registered(w.store), undefined, 'the Node is not Ready yet');

  w.clock.step(100);
  w.nodeIs(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  await w.runner.runDue();
  t.equal(await registered(w.store), 'True', 'registered on the Node turning Ready, 1.1 s into a 10 s idle pass');
});

void t.test('changes of Nodes and NodeClaims that nothing waits on do not wake registration', async (t) => {
  const w = world();
  await w.store.create(nodeClaim({ name: 'nc-1', finalizers: [terminationFinalizer] }));
  await w.claimChanged('nc-1');
  await launch(w);
  w.nodeIs(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  await w.runner.runDue();
  t.equal(await registered(w.store), 'True');
  await w.claimChanged('nc-1');
  const before = w.passes();

  w.clock.step(1_000);
  w.nodeIs(node({ name: 'ip-10-0-0-1', providerID, ready: true, labels: { 'example.com/heartbeat': '1' } }));
  w.nodeIs(node({ name: 'ip-10-0-0-2', ready: true }));
  await w.store.create(nodeClaim({ name: 'nc-2', finalizers: [terminationFinalizer] }));
  await w.claimChanged('nc-2');
  await w.runner.runDue();
  t.equal(w.passes(), before, 'an Initialized NodeClaim\'s Node, a Node without a NodeClaim and an unlaunched NodeClaim wake nothing');
});

void t.test('a write conflict holds back only its own NodeClaim, which registers once its newer version reaches the model', async (t) => {
  const w = world();
  await w.store.create(nodeClaim({ name: 'nc-1', finalizers: [terminationFinalizer] }));
  await launch(w);
  w.nodeIs(node({ name: 'ip-10-0-0-1', providerID, ready: true }));
  const otherId = 'aws:///us-east-1a/i-00000000000000002';
  await w.store.create(nodeClaim({ name: 'nc-2', providerID: otherId, finalizers: [terminationFinalizer], conditions: [condition('Launched', 'True', w.clock.now())] }));
  await w.claimChanged('nc-2');
  w.nodeIs(node({ name: 'ip-10-0-0-2', providerID: otherId, ready: true }));
  // Another controller wrote nc-1; the model has not seen that version yet.
  await w.store.addAnnotations('nc-1', { 'example.com/touched': 'true' });
  await w.runner.runDue();
  t.equal(await registered(w.store), undefined, 'the write computed from the older version of nc-1 was refused');
  const other = await w.store.get('nc-2');
  t.equal(other === undefined ? undefined : findCondition(other, conditionTypes.registered)?.status, 'True', 'nc-2 registered in the same pass');

  w.clock.step(100);
  await w.claimChanged('nc-1');
  await w.runner.runDue();
  t.equal(await registered(w.store), 'True', 'the newer version woke registration, and its write went through');
});
