import t from 'tap';
import { CopyImageCommand, DescribeLaunchTemplateVersionsCommand } from '@aws-sdk/client-ec2';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type { ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { parseMime } from '../../../provisioner/aws/user-data/mime.js';
import { launchRequest, nodeClassSpec, offering, startMotoWorld, type MotoWorld } from './moto-fixture.js';

/** An image of the architecture of `source`, named as the family publishes it. */
async function image(world: MotoWorld, source: string, name: string): Promise<string> {
  const out = await world.clients.ec2.send(
    new CopyImageCommand({ SourceImageId: source, SourceRegion: world.moto.region, Name: name }),
  );
  return out.ImageId ?? '';
}

async function parameter(world: MotoWorld, path: string, value: string): Promise<void> {
  const Name = `${world.vpc.amiParameterPrefix}${path}`;
  await world.clients.ssm.send(new PutParameterCommand({ Name, Value: value, Type: 'String', Overwrite: true }));
}

/** The launch templates of the last CreateFleet, read back from EC2: image and decoded user data. */
async function lastTemplates(world: MotoWorld): Promise<{ imageId: string; userData: string; data: Record<string, unknown> }[]> {
  const fleet = world.proxy.requests.filter((p) => p.get('Action') === 'CreateFleet').at(-1);
  const ids = [...(fleet?.entries() ?? [])]
    .filter(([k]) => /^LaunchTemplateConfigs\.\d+\.LaunchTemplateSpecification\.LaunchTemplateId$/.test(k))
    .map(([, v]) => v);
  const out = [];
  for (const id of ids) {
    const versions = await world.clients.ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: id }));
    const data = versions.LaunchTemplateVersions?.[0]?.LaunchTemplateData ?? {};
    out.push({
      imageId: data.ImageId ?? '',
      userData: Buffer.from(data.UserData ?? '', 'base64').toString('utf8'),
      data: data as Record<string, unknown>,
    });
  }
  return out;
}

function networkInterfaceTagKeys(data: Record<string, unknown>): (string | undefined)[] {
  const specs = (data['TagSpecifications'] ?? []) as { ResourceType?: string; Tags?: { Key?: string }[] }[];
  return specs.find((s) => s.ResourceType === 'network-interface')?.Tags?.map((tag) => tag.Key) ?? [];
}

void t.test('every AMI family launches with its own image and user data, read back from EC2', async (t) => {
  const world = await startMotoWorld(t);
  const { vpc, resolver, provider } = world;
  const zone = vpc.subnets[0]?.zone ?? '';
  const seeded = (arch: string, variant: string): string => vpc.images.find((i) => i.arch === arch && i.variant === variant)?.id ?? '';
  const images = {
    // The AL2023 variants are seeded with the VPC, as EKS publishes them in every region.
    al2023Nvidia: seeded('x86_64', 'nvidia'),
    al2023Neuron: seeded('x86_64', 'neuron'),
    brX86: await image(world, vpc.amis.amd64, 'bottlerocket-aws-k8s-1.33-x86_64-v1.47.0'),
    brArm: await image(world, vpc.amis.arm64, 'bottlerocket-aws-k8s-1.33-aarch64-v1.47.0'),
    brNvidia: await image(world, vpc.amis.amd64, 'bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.47.0'),
    windows: await image(world, vpc.amis.amd64, 'Windows_Server-2022-English-Core-EKS_Optimized-1.33'),
  };
  await parameter(world, `/bottlerocket/aws-k8s-${vpc.kubernetesVersion}/x86_64/latest/image_id`, images.brX86);
  await parameter(world, `/bottlerocket/aws-k8s-${vpc.kubernetesVersion}/arm64/latest/image_id`, images.brArm);
  await parameter(world, `/bottlerocket/aws-k8s-${vpc.kubernetesVersion}-nvidia/x86_64/latest/image_id`, images.brNvidia);
  await parameter(world, `/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-${vpc.kubernetesVersion}/image_id`, images.windows);
  const launch = async (nodeClass: ResolvedNodeClass, offerings: ReturnType<typeof offering>[]): ReturnType<typeof lastTemplates> => {
    await provider.create(launchRequest(nodeClass, offerings, { nodeClaimName: `nc-${String(world.proxy.requests.length)}` }));
    return lastTemplates(world);
  };

  await t.test('al2023 gives GPU types the nvidia image, Neuron types the neuron image, the rest the standard one', async (t) => {
    const nodeClass = await resolver.resolve(nodeClassSpec(vpc));
    t.same(nodeClass.amis.map((a) => a.variant).sort(), ['neuron', 'nvidia', 'nvidia', 'standard', 'standard'], 'nvidia on both architectures');
    const templates = await launch(nodeClass, [
      { ...offering('m5.large', zone, 0.1), kubelet: { maxPods: 29 } },
      { ...offering('g5.xlarge', zone, 1), gpuCount: 1, kubelet: { maxPods: 58 } },
      { ...offering('inf2.xlarge', zone, 0.8), acceleratorCount: 1, kubelet: { maxPods: 58 } },
    ]);
    t.same(templates.map((lt) => lt.imageId).sort(), [vpc.amis.amd64, images.al2023Neuron, images.al2023Nvidia].sort());
    for (const lt of templates) {
      const config = parseYaml(parseMime(lt.userData).at(-1)?.content ?? '') as { spec: { kubelet: { config: { maxPods: number } } } };
      t.equal(config.spec.kubelet.config.maxPods, lt.imageId === vpc.amis.amd64 ? 29 : 58, 'each template tells the kubelet its pods');
    }
  });

  await t.test('al2023 with kubelet maxPods 20, reserved resources and RAID0 writes them into the NodeConfig', async (t) => {
    const nodeClass = await resolver.resolve(nodeClassSpec(vpc, { instanceStorePolicy: 'RAID0', associatePublicIPAddress: true }));
    // The kubelet the simulation sized m5d.large with under the class's spec.kubelet (LaunchOffering.kubelet).
    const kubelet = { maxPods: 20, systemReserved: { cpu: '100m' }, kubeReserved: { memory: '300Mi' } };
    const [lt] = await launch(nodeClass, [{ ...offering('m5d.large', zone, 0.1), kubelet }]);
    const config = parseYaml(parseMime(lt?.userData ?? '').at(-1)?.content ?? '') as Record<string, Record<string, Record<string, unknown>>>;
    t.match(config['spec']?.['kubelet'], { config: { maxPods: 20, systemReserved: { cpu: '100m' }, kubeReserved: { memory: '300Mi' } } });
    t.same(config['spec']?.['instance'], { localStorage: { strategy: 'RAID0' } });
    t.match(lt?.data['NetworkInterfaces'], [{ DeviceIndex: 0, AssociatePublicIpAddress: true, Groups: [vpc.securityGroup.id] }]);
    const eni = networkInterfaceTagKeys(lt?.data ?? {});
    t.ok(eni.includes('team'), "the class's tags reach the network interfaces");
    t.notOk(eni.includes('karpenter.sh/nodeclaim'), 'NodeClaims share the template');
  });

  await t.test('bottlerocket launches its own images with TOML settings and its two volumes', async (t) => {
    const nodeClass = await resolver.resolve(nodeClassSpec(vpc, {
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      userData: "[settings.host-containers.admin]\nenabled = true\n",
    }));
    t.equal(nodeClass.amiFamily, 'Bottlerocket');
    t.same(nodeClass.blockDeviceMappings.map((b) => [b.deviceName, b.ebs.volumeSize]), [['/dev/xvda', '6Gi'], ['/dev/xvdb', '20Gi']]);
    const templates = await launch(nodeClass, [
      { ...offering('m6g.large', zone, 0.08), kubelet: { maxPods: 29 } },
      { ...offering('g5.xlarge', zone, 1), gpuCount: 1, kubelet: { maxPods: 58 } },
    ]);
    t.same(templates.map((lt) => lt.imageId).sort(), [images.brArm, images.brNvidia].sort());
    for (const lt of templates) {
      const settings = parseToml(lt.userData)['settings'] as Record<string, Record<string, unknown>>;
      t.match(settings['kubernetes'], { 'cluster-name': world.clusterName, 'max-pods': Number, 'node-taints': { 'karpenter.sh/unregistered': [':NoExecute'] } });
      t.same(settings['host-containers'], { admin: { enabled: true } }, "the user's settings are kept");
    }
  });

  await t.test('windows launches its image with a PowerShell bootstrap and a 50Gi root volume', async (t) => {
    const nodeClass = await resolver.resolve(nodeClassSpec(vpc, { amiSelectorTerms: [{ alias: 'windows2022@latest' }] }));
    t.equal(nodeClass.amiFamily, 'Windows2022');
    const [lt] = await launch(nodeClass, [{ ...offering('m5.large', zone, 0.1), kubelet: { maxPods: 110 } }]);
    t.equal(lt?.imageId, images.windows);
    t.match(lt?.userData, /^<powershell>\n[\s\S]*-EKSClusterName 'moto-test'[\s\S]*--max-pods=110[\s\S]*<\/powershell>$/);
    t.match(lt?.data['BlockDeviceMappings'], [{ DeviceName: '/dev/sda1', Ebs: { VolumeSize: 50 } }]);
  });
});
