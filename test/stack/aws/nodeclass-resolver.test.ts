import t from 'tap';
import { DeleteParameterCommand, PutParameterCommand } from '@aws-sdk/client-ssm';
import { isNodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { al2023Parameter } from '../eks-images.js';
import { nodeClassSpec, startMotoWorld } from './moto-fixture.js';

void t.test('nodeclass resolution against moto', async (t) => {
  const world = await startMotoWorld(t);
  const { vpc, resolver } = world;

  await t.test('tag selectors find every seeded subnet and the security group', async (t) => {
    const resolved = await resolver.resolve(nodeClassSpec(vpc));
    t.same(resolved.subnets.map((s) => s.id).sort(), vpc.subnets.map((s) => s.id).sort());
    t.same(resolved.securityGroups, [vpc.securityGroup]);
    const [first] = resolved.subnets;
    t.equal(
      first?.availableIpAddressCount,
      Math.max(...resolved.subnets.map((s) => s.availableIpAddressCount)),
      'most free addresses first',
    );
  });

  await t.test('a wildcard tag value matches any value of the key', async (t) => {
    const spec = nodeClassSpec(vpc, {
      subnetSelectorTerms: [{ tags: { [vpc.discoveryTag.key]: '*' } }],
    });
    const resolved = await resolver.resolve(spec);
    t.equal(resolved.subnets.length, vpc.subnets.length);
  });

  await t.test('ids and names select exactly those resources', async (t) => {
    const [subnet] = vpc.subnets;
    const spec = nodeClassSpec(vpc, {
      subnetSelectorTerms: [{ id: subnet?.id ?? '' }],
      securityGroupSelectorTerms: [{ name: vpc.securityGroup.name }],
      amiSelectorTerms: [{ id: vpc.amis.amd64 }],
    });
    const resolved = await resolver.resolve(spec);
    t.same(
      resolved.subnets.map((s) => s.id),
      [subnet?.id],
    );
    t.same(
      resolved.securityGroups.map((g) => g.id),
      [vpc.securityGroup.id],
    );
    t.same(
      resolved.amis.map((a) => [a.id, a.architecture]),
      [[vpc.amis.amd64, 'amd64']],
    );
  });

  await t.test('a cidr term selects the subnet whose CIDR block is exactly it, ANDed with the term\'s tags', async (t) => {
    const byCidr = (cidr: string): string[] => vpc.subnets.filter((s) => s.cidr === cidr).map((s) => s.id);
    const exact = await resolver.resolve(nodeClassSpec(vpc, { subnetSelectorTerms: [{ cidr: '10.0.32.0/20' }] }));
    t.same(exact.subnets.map((s) => s.id), byCidr('10.0.32.0/20'));
    const tagged = await resolver.resolve(nodeClassSpec(vpc, {
      subnetSelectorTerms: [{ cidr: '10.0.16.0/24', tags: { [vpc.discoveryTag.key]: vpc.discoveryTag.value } }, { cidr: '10.0.48.0/20' }],
    }));
    t.same(tagged.subnets.map((s) => s.id).sort(), [...byCidr('10.0.16.0/24'), ...byCidr('10.0.48.0/20')].sort(), 'terms are ORed');
    const wider = await resolver.resolve(nodeClassSpec(vpc, { subnetSelectorTerms: [{ cidr: '10.0.0.0/16' }] })).catch((e: unknown) => e);
    t.ok(isNodeClassNotReadyError(wider), 'the VPC\'s own block is no subnet\'s: nothing is selected, not every subnet inside it');
    const otherTag = await resolver.resolve(nodeClassSpec(vpc, { subnetSelectorTerms: [{ cidr: '10.0.32.0/20', tags: { 'no-such-tag': 'x' } }] })).catch((e: unknown) => e);
    t.ok(isNodeClassNotReadyError(otherTag), 'the CIDR block and the tags must both match');
  });

  await t.test('the al2023 alias resolves every image EKS publishes for it through SSM: standard, nvidia and neuron', async (t) => {
    const resolved = await resolver.resolve(nodeClassSpec(vpc));
    t.same(
      resolved.amis.map((a) => [a.architecture, a.id, a.variant]).sort(),
      vpc.images.map((i) => [i.arch === 'x86_64' ? 'amd64' : 'arm64', i.id, i.variant]).sort(),
    );
    t.equal(new Set(resolved.amis.map((a) => a.id)).size, 5, 'five images: two standard, two nvidia, one neuron');
  });

  await t.test('a variant the region does not publish is skipped, not an error', async (t) => {
    const neuron = vpc.images.find((i) => i.variant === 'neuron');
    const Name = al2023Parameter(vpc.eksAmiParameterPrefix, vpc.kubernetesVersion, { arch: 'x86_64', variant: 'neuron' });
    await world.clients.ssm.send(new DeleteParameterCommand({ Name }));
    t.teardown(async () => { await world.clients.ssm.send(new PutParameterCommand({ Name, Value: neuron?.id ?? '', Type: 'String', Overwrite: true })); });
    const resolved = await resolver.resolve(nodeClassSpec(vpc));
    t.same(resolved.amis.map((a) => a.variant).sort(), ['nvidia', 'nvidia', 'standard', 'standard']);
  });

  await t.test('an ssmParameter term reads the image id from the parameter', async (t) => {
    const name = `${vpc.eksAmiParameterPrefix}/${vpc.kubernetesVersion}/amazon-linux-2023/arm64/standard/recommended/image_id`;
    const resolved = await resolver.resolve(
      nodeClassSpec(vpc, { amiSelectorTerms: [{ ssmParameter: name }] }),
    );
    t.same(
      resolved.amis.map((a) => a.id),
      [vpc.amis.arm64],
    );
  });

  await t.test(
    'a name selector with an owner picks the newest matching image per architecture',
    async (t) => {
      const spec = nodeClassSpec(vpc, {
        amiSelectorTerms: [{ name: 'al2023-ami-2023.*', owner: 'amazon' }],
      });
      const resolved = await resolver.resolve(spec);
      t.same(
        resolved.amis.map((a) => a.architecture).sort(),
        ['amd64', 'arm64'],
      );
      t.ok(
        resolved.amis.every((a, i) => i === 0 || (resolved.amis[i - 1]?.creationDate ?? '') >= (a.creationDate ?? '')),
        'newest first',
      );
      t.ok(resolved.amis.every((a) => a.name.startsWith('al2023-ami-2023.')));
    },
  );

  await t.test('defaults fill metadata options and the root volume', async (t) => {
    const resolved = await resolver.resolve(nodeClassSpec(vpc));
    t.same(resolved.metadataOptions, {
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
    t.match(resolved.blockDeviceMappings, [
      {
        deviceName: '/dev/xvda',
        rootVolume: true,
        ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true },
      },
    ]);
  });

  await t.test(
    'a selector that matches nothing makes the nodeclass not ready, naming the selector',
    async (t) => {
      const spec = nodeClassSpec(vpc, { subnetSelectorTerms: [{ tags: { 'no-such-tag': 'x' } }] });
      const e: unknown = await resolver.resolve(spec).catch((err: unknown) => err);
      t.ok(isNodeClassNotReadyError(e));
      t.match((e as Error).message, /subnetSelectorTerms/);
    },
  );

  await t.test('an alias whose parameter is missing makes the nodeclass not ready', async (t) => {
    const e: unknown = await resolver
      .resolve(nodeClassSpec(vpc, { amiSelectorTerms: [{ alias: 'al2023@v20990101' }] }))
      .catch((err: unknown) => err);
    t.ok(isNodeClassNotReadyError(e));
  });
});
