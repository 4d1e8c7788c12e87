import t from 'tap';
import { DescribeLaunchTemplateVersionsCommand, DescribePlacementGroupsCommand, type RequestLaunchTemplateData } from '@aws-sdk/client-ec2';
import { isNodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { motoClients } from '../moto.js';
import { launchRequest, nodeClassSpec, offering, startMotoWorld } from './moto-fixture.js';

// placementGroupSelector and networkInterfaces through the unmodified SDK: discovery (DescribePlacementGroups), the
// launch template's Placement and interfaces as CreateLaunchTemplate sends them, and the fleet moto launches from it.
// moto 5.2.5 has no placement group API (measured below), so the fault proxy answers DescribePlacementGroups in
// EC2's XML (test/stack/placement-groups.ts); everything else is moto's.

void t.test('placement groups and EFA interfaces against moto', async (t) => {
  const world = await startMotoWorld(t);
  const { moto, proxy, vpc, resolver, provider, clients } = world;
  const [zone] = vpc.subnets.map((s) => s.zone);
  proxy.setPlacementGroups([
    { id: 'pg-0c1a55e7000000001', name: 'training', strategy: 'cluster' },
    { id: 'pg-0ba7717100000002', name: 'kafka', strategy: 'partition', partitionCount: 3 },
    { id: 'pg-05b7ead000000003', name: 'draining', strategy: 'spread', state: 'deleting' },
  ]);
  const sent = (action: string): URLSearchParams[] => proxy.requests.filter((p) => p.get('Action') === action);
  const templateData = async (): Promise<RequestLaunchTemplateData | undefined> => {
    const id = sent('CreateFleet').at(-1)?.get('LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId') ?? '';
    const out = await clients.ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: id }));
    return out.LaunchTemplateVersions?.[0]?.LaunchTemplateData as RequestLaunchTemplateData | undefined;
  };

  await t.test('moto itself answers no DescribePlacementGroups (so the proxy does, as EC2)', async (t) => {
    const direct = motoClients(moto).ec2;
    t.teardown(() => { direct.destroy(); });
    const e: unknown = await direct.send(new DescribePlacementGroupsCommand({})).catch((err: unknown) => err);
    t.ok(e instanceof Error, `moto 5.2.5: ${e instanceof Error ? e.message.split('\n')[0] ?? '' : 'answered'}`);
  });

  await t.test('the selector resolves by name and by id, with the request Karpenter sends', async (t) => {
    const byName = await resolver.resolve(nodeClassSpec(vpc, { placementGroupSelector: { name: 'kafka' } }));
    t.same(byName.placementGroup, { id: 'pg-0ba7717100000002', name: 'kafka', strategy: 'partition', partitionCount: 3 });
    t.match(Object.fromEntries(sent('DescribePlacementGroups').at(-1) ?? []), { 'Filter.1.Name': 'state', 'Filter.1.Value.1': 'available', 'GroupName.1': 'kafka' });
    const byId = await resolver.resolve(nodeClassSpec(vpc, { placementGroupSelector: { id: 'pg-0c1a55e7000000001' } }));
    t.same(byId.placementGroup, { id: 'pg-0c1a55e7000000001', name: 'training', strategy: 'cluster', partitionCount: 0 });
    t.equal(sent('DescribePlacementGroups').at(-1)?.get('GroupId.1'), 'pg-0c1a55e7000000001');
  });

  await t.test('a group EC2 does not know, or that is not available, leaves the class not ready with Karpenter\'s reasons', async (t) => {
    const unknown: unknown = await resolver.resolve(nodeClassSpec(vpc, { placementGroupSelector: { name: 'nope' } })).catch((e: unknown) => e);
    t.ok(isNodeClassNotReadyError(unknown));
    t.match(unknown, { part: 'placementGroup', reason: 'PlacementGroupResolutionFailed', message: /InvalidPlacementGroup.Unknown/ });
    const deleting: unknown = await resolver.resolve(nodeClassSpec(vpc, { placementGroupSelector: { name: 'draining' } })).catch((e: unknown) => e);
    t.match(deleting, { part: 'placementGroup', reason: 'PlacementGroupNotFound', message: /Placement group "draining" not found/ });
  });

  await t.test('a partition the NodeClaim requires is the template\'s Placement, by group id; moto launches from it', async (t) => {
    const nodeClass = await resolver.resolve(nodeClassSpec(vpc, { placementGroupSelector: { name: 'kafka' } }));
    const launched = await provider.create(launchRequest(nodeClass, [offering('m5.large', zone ?? '', 0.05, 'on-demand')], { placementPartition: 2 }));
    t.same(launched.placement, { groupId: 'pg-0ba7717100000002', partitioned: true, partition: 2 });
    t.match(Object.fromEntries(sent('CreateLaunchTemplate').at(-1) ?? []), { 'LaunchTemplateData.Placement.GroupId': 'pg-0ba7717100000002', 'LaunchTemplateData.Placement.PartitionNumber': '2' });
    t.match((await templateData())?.Placement, { GroupId: 'pg-0ba7717100000002', PartitionNumber: 2, Tenancy: 'default' }, 'as moto stored the template the fleet used');
  });

  await t.test('listed interfaces and an EFA launch reach the template moto launched from', async (t) => {
    const listed = await resolver.resolve(nodeClassSpec(vpc, { networkInterfaces: [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' }, { networkCardIndex: 1, deviceIndex: 1, interfaceType: 'efa-only' }] }));
    const p5 = { ...offering('p5.48xlarge', zone ?? '', 55, 'on-demand'), efaInterfaces: 1 };
    const viaList = await provider.create(launchRequest(listed, [p5]));
    t.equal(viaList.efaInterfaces, 1);
    t.match((await templateData())?.NetworkInterfaces, [{ DeviceIndex: 0, NetworkCardIndex: 0, InterfaceType: 'interface' }, { DeviceIndex: 1, NetworkCardIndex: 1, InterfaceType: 'efa-only' }]);
    const plain = await resolver.resolve(nodeClassSpec(vpc));
    const asked = await provider.create(launchRequest(plain, [{ ...p5, efaInterfaces: 32 }], { efaRequested: true }));
    t.equal(asked.efaInterfaces, 32);
    const interfaces = (await templateData())?.NetworkInterfaces ?? [];
    t.equal(interfaces.filter((n) => n.InterfaceType === 'efa').length, 32, 'one efa interface per EFA device');
    t.match(interfaces[31], { NetworkCardIndex: 31, DeviceIndex: 1, InterfaceType: 'efa' });
  });
});
