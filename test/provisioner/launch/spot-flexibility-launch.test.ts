// The launch path from a pending pod to CreateFleet's overrides, on the fake cloud: the planner's pass, the
// virtual node's plan, the materializer's NodeClaim and launch request, and the fleet's overrides built from it.
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import type { ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { parseResourceList } from '../../../domain/resource-list.js';
import { planOverrides } from '../../../provisioner/aws/instances/fleet-overrides.js';
import { PlanMaterializer } from '../../../provisioner/launch/materializer.js';
import { planOnce } from '../../../provisioner/provisioning/planner.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const resolved: ResolvedNodeClass = {
  name: 'default', amiFamily: 'AL2023', subnets: zones.map((zone, i) => ({ id: `subnet-${String(i)}`, zone, availableIpAddressCount: 100 })),
  securityGroups: [], amis: [{ id: 'ami-123', name: 'al2023', architecture: 'amd64' }], instanceProfile: 'node', blockDeviceMappings: [], tags: {},
  metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
};
const resolver: NodeClassResolver = { resolve: () => Promise.resolve(resolved) };
const catalog = new Map(fewInstanceTypes.map((type) => [type.name, type]));

interface World {
  readonly state: ClusterState;
  readonly cloud: FakeCloudProvider;
  readonly claims: InMemoryNodeClaimStore;
  readonly nodes: FakeNodeWriter;
  readonly materializer: PlanMaterializer;
}

/** One pending pod and an amd64 NodePool of the given capacity types, over the fake cloud. */
function world(capacityTypes: string[]): World {
  const clock = new FakeClock(1_700_000_000_000);
  const requirements = [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'karpenter.sh/capacity-type', operator: 'In', values: capacityTypes }];
  const template = { spec: { requirements, nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } };
  const state = stateWith({ nodePools: [nodePool('default', { template })], nodeClasses: [nodeClass()], pods: [pendingPod('web', { cpu: '500m', memory: '512Mi' })] });
  const nodes = new FakeNodeWriter(state);
  const cloud = new FakeCloudProvider(clock);
  const claims = new InMemoryNodeClaimStore(clock);
  const unavailableOfferings = (): ReadonlySet<string> => new Set(cloud.unavailableOfferings.keys());
  const materializer = new PlanMaterializer({ state, nodeClaims: claims, nodes, cloud, resolver, catalog: () => catalog, unavailableOfferings, events: new FakeEventRecorder(), clock });
  return { state, cloud, claims, nodes, materializer };
}

/** The planner's pass: the one virtual node it publishes for the pod. */
async function plannedNode(w: World): Promise<string> {
  let suffix = 0;
  await planOnce({
    state: w.state, nodes: w.nodes, events: new FakeEventRecorder(), clock: new FakeClock(1_700_000_000_000),
    instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(), launchNow: () => undefined,
    randomSuffix: () => `s${String(suffix++).padStart(4, '0')}`,
  });
  const [name] = [...w.state.plans.keys()];
  if (name === undefined) throw new Error('the planner published no virtual node');
  return name;
}

/** The distinct instance types of the one launch request, in its order. */
function offeredTypes(w: World): string[] {
  const [request] = w.cloud.createRequests;
  if (request === undefined || w.cloud.createRequests.length !== 1) throw new Error(`${String(w.cloud.createRequests.length)} launch requests, not one`);
  return [...new Set(request.offerings.map((o) => o.instanceType))];
}

void t.test('a spot NodeClaim offers CreateFleet every type of its plan, in every zone, cheapest first', async (t) => {
  const w = world(['spot']);
  const virtual = await plannedNode(w);
  const planned = w.state.plans.get(virtual)?.instanceTypes ?? [];
  t.equal(planned[0], 't3.medium', 'the plan is sized for the cheapest type that holds the pod');
  t.ok(planned.length > 1, `and offers more: ${planned.join(', ')}`);
  await w.materializer.materialize(virtual);
  const offered = offeredTypes(w);
  t.same(offered, planned, 'the launch offers every type of the plan, in its order');
  const requirements = (await w.claims.get(virtual.replace(/^launchable-/, '')))?.spec.requirements ?? [];
  t.same(requirements.find((r) => r.key === 'node.kubernetes.io/instance-type')?.values, offered, "the NodeClaim's requirements name them");
  const request = w.cloud.createRequests[0];
  t.ok(request?.offerings.every((o) => o.capacityType === 'spot'), 'all spot');
  const fleet = planOverrides({ offerings: request?.offerings ?? [], capacityType: 'spot', subnets: resolved.subnets, amis: resolved.amis });
  const overrides = fleet.groups.flatMap((g) => g.overrides);
  t.same([...new Set(overrides.map((o) => o.InstanceType))], offered, "CreateFleet's overrides carry every type, cheapest first");
  t.equal(overrides.length, offered.length * zones.length, 'in every zone');
  t.equal([...w.cloud.instances.values()][0]?.instanceType, 't3.medium', 'and the cheapest launches when it has capacity');
});

void t.test("when the cheapest spot type has no capacity EC2 launches the next inside the same fleet, and the real Node shows that type's allocatable", async (t) => {
  const w = world(['spot']);
  const virtual = await plannedNode(w);
  for (const zone of zones) w.cloud.insufficientCapacity.add(`spot:t3.medium:${zone}`);
  const { nodeName } = await w.materializer.materialize(virtual);
  const offered = offeredTypes(w);
  const launched = [...w.cloud.instances.values()][0]?.instanceType ?? '';
  t.equal(launched, offered[1], 'the next cheapest type, with no second launch');
  const memory = (name: string): number | undefined => catalog.get(name)?.allocatable['memory'];
  t.not(memory(launched), memory('t3.medium'), 'a type with more memory than the planned one');
  const shown = parseResourceList(w.nodes.nodes.get(nodeName)?.status?.allocatable)['memory'];
  t.equal(shown, memory(launched), "the real Node shows the launched type's allocatable, which the extender's room checks read from then on");
});

void t.test('an on-demand NodeClaim offers the type it was sized for, as before', async (t) => {
  const w = world(['on-demand']);
  const virtual = await plannedNode(w);
  await w.materializer.materialize(virtual);
  t.same(offeredTypes(w), ['t3.medium'], 'EC2 launches the cheapest on-demand type anyway');
});
