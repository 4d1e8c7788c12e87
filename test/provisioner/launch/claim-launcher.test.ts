import t from 'tap';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import type { ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { ClaimLaunchController } from '../../../provisioner/launch/claim-launcher.js';
import { PlanMaterializer } from '../../../provisioner/launch/materializer.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { iso, nodeClaim } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

const resolved: ResolvedNodeClass = {
  name: 'default', amiFamily: 'AL2023', subnets: [], securityGroups: [], amis: [{ id: 'ami-123', name: 'al2023', architecture: 'amd64' }],
  instanceProfile: 'node', blockDeviceMappings: [], tags: {},
  metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
};
const resolver: NodeClassResolver = { resolve: () => Promise.resolve(resolved) };

interface World {
  readonly state: ClusterState;
  readonly clock: FakeClock;
  readonly cloud: FakeCloudProvider;
  readonly claims: InMemoryNodeClaimStore;
  readonly events: FakeEventRecorder;
  readonly controller: ClaimLaunchController;
}

function world(pools = [nodePool()]): World {
  const clock = new FakeClock(1_700_000_000_000);
  const state = stateWith({ nodePools: pools, nodeClasses: [nodeClass()] });
  const nodes = new FakeNodeWriter(state);
  const cloud = new FakeCloudProvider(clock);
  const claims = new InMemoryNodeClaimStore(clock);
  const catalog = new Map(fewInstanceTypes.map((type) => [type.name, type]));
  const events = new FakeEventRecorder();
  const unavailableOfferings = (): ReadonlySet<string> => new Set(cloud.unavailableOfferings.keys());
  const launcher = new PlanMaterializer({ state, nodeClaims: claims, nodes, cloud, resolver, catalog: () => catalog, unavailableOfferings, events, clock });
  const controller = new ClaimLaunchController({ state, launcher, store: claims, instanceTypes: () => fewInstanceTypes, unavailableOfferings, events, clock });
  return { state, clock, cloud, claims, events, controller };
}

/** A NodeClaim as a user applies it: requirements, a class, requests; no status. */
async function applied(w: World, name: string, spec: Partial<NodeClaim['spec']> = {}, labels: Record<string, string> = {}): Promise<NodeClaim> {
  const base = nodeClaim({ name, labels, createdAtMs: w.clock.now() });
  const claim = await w.claims.create({ ...base, metadata: { ...base.metadata, creationTimestamp: iso(w.clock.now()) }, spec: { ...base.spec, ...spec } });
  w.state.upsertNodeClaim(claim);
  return claim;
}

async function launchedClaim(w: World, name: string): Promise<NodeClaim> {
  const claim = await w.claims.get(name);
  if (claim?.status?.providerID === undefined) throw new Error(`NodeClaim ${name} has not launched`);
  return claim;
}

const instanceIdOf = (claim: NodeClaim): string => claim.status?.providerID?.split('/').at(-1) ?? '';

/** Lets the launches the controller started in the background finish. */
async function settle(w: World): Promise<void> {
  for (let i = 0; i < 50 && w.controller.launching > 0; i++) await new Promise((resolve) => setImmediate(resolve));
}

void t.test('a NodeClaim applied by hand is launched from its own spec: its requirements, and only types that hold its requests', async (t) => {
  const w = world();
  await applied(w, 'by-hand', {
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5', 't3'] }],
    resources: { requests: { cpu: '3', memory: '4Gi' } },
  });
  await w.controller.reconcile();
  await settle(w);
  t.equal(w.cloud.createRequests.length, 0, 'not before the grace: whoever made it may be launching it');
  w.clock.step(5_000);
  await w.controller.reconcile();
  await settle(w);
  const [request] = w.cloud.createRequests;
  t.equal(request?.nodeClaimName, 'by-hand');
  t.same([...new Set(request?.offerings.map((o) => o.instanceType))].sort(), ['m5.xlarge'], 'of m5 and t3, only m5.xlarge holds 3 CPUs');
  const claim = await launchedClaim(w, 'by-hand');
  t.match(claim.status?.conditions?.find((c) => c.type === 'Launched'), { status: 'True' }, 'the claim shows its instance');
  t.ok(w.state.nodes.has(instanceIdOf(claim)), 'and its real Node exists');
  w.state.upsertNodeClaim(claim);
  await w.controller.reconcile();
  await settle(w);
  t.equal(w.cloud.createRequests.length, 1, 'a launched claim is not launched again');
});

void t.test('a NodeClaim some launch owns is left to it: a published plan, a static NodePool, one being deleted, one launched', async (t) => {
  const w = world([nodePool(), nodePool('fixed', { replicas: 1 })]);
  await applied(w, 'planned');
  w.state.upsertPlan({ nodeName: 'launchable-planned', nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.096, assignedPods: [], room: {} });
  await applied(w, 'static', {}, { 'karpenter.sh/nodepool': 'fixed' });
  const deleting = await applied(w, 'deleting');
  w.state.upsertNodeClaim({ ...deleting, metadata: { ...deleting.metadata, deletionTimestamp: iso(w.clock.now()) } });
  const launched = await applied(w, 'launched');
  w.state.upsertNodeClaim({ ...launched, status: { providerID: 'aws:///us-east-1a/i-0abc' } });
  w.clock.step(60_000);
  await w.controller.reconcile();
  await settle(w);
  t.same(w.cloud.createRequests, []);
});

void t.test('two passes while a launch runs launch once', async (t) => {
  const w = world();
  await applied(w, 'once');
  w.clock.step(5_000);
  await w.controller.reconcile();
  await w.controller.reconcile();
  await settle(w);
  t.equal(w.cloud.createRequests.length, 1);
});

void t.test('a NodeClaim no instance type can hold is told so and deleted, as Karpenter deletes one with no capacity', async (t) => {
  const w = world();
  await applied(w, 'too-big', { resources: { requests: { cpu: '512' } } });
  w.clock.step(5_000);
  await w.controller.reconcile();
  await settle(w);
  t.same(w.cloud.createRequests, []);
  t.match(w.events.events.find((e) => e.reason === 'InsufficientCapacityError'), { type: 'Warning', message: /no instance type.*holds its resource requests/ });
  t.ok((await w.claims.get('too-big'))?.metadata.deletionTimestamp !== undefined || (await w.claims.get('too-big')) === undefined, 'the claim is deleted');
});
