import { DescribeFleetsCommand, DescribeImagesCommand, DescribeLaunchTemplateVersionsCommand, EC2Client, type ResponseLaunchTemplateData } from '@aws-sdk/client-ec2';
import t from 'tap';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { createDeployment, listInstances, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';
import type { ProductStack } from './product-stack.js';

const gpu = 'nvidia.com/gpu';
const efa = 'vpc.amazonaws.com/efa';

/**
 * The launch template an instance was launched from, as EC2 stored it, and its image's name: the fleet that launched
 * the instance names its template (moto, like EC2, keeps neither interface types nor the template on the instance).
 */
async function launchedFrom(product: ProductStack, instanceId: string): Promise<{ data: ResponseLaunchTemplateData | undefined; imageName: string }> {
  const ec2 = new EC2Client({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  try {
    const fleets = (await ec2.send(new DescribeFleetsCommand({}))).Fleets ?? [];
    const launched = fleets.flatMap((f) => f.Instances ?? []).find((i) => i.InstanceIds?.includes(instanceId) === true);
    const template = launched?.LaunchTemplateAndOverrides?.LaunchTemplateSpecification;
    if (template?.LaunchTemplateId === undefined) return { data: undefined, imageName: '' };
    const out = await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: template.LaunchTemplateId, Versions: [template.Version ?? '$Latest'] }));
    const data = out.LaunchTemplateVersions?.[0]?.LaunchTemplateData;
    return { data, imageName: await imageName(ec2, data?.ImageId) };
  } finally {
    ec2.destroy();
  }
}

async function imageName(ec2: EC2Client, imageId: string | undefined): Promise<string> {
  if (imageId === undefined) return '';
  return (await ec2.send(new DescribeImagesCommand({ ImageIds: [imageId] }))).Images?.[0]?.Name ?? '';
}

/** The one node an app's single pod runs on, once it runs, with its instance type and the launched instance behind it. */
async function nodeOf(product: ProductStack, app: string): Promise<{ name: string; type: string; allocatable: Record<string, string>; instanceId: string | undefined }> {
  const { nodes } = await waitForRunning(product, app, 1, 240_000);
  const [node = {}] = [...nodes.values()];
  const { metadata = {}, spec = {}, status = {} } = node;
  const instance = (await listInstances(product)).find((i) => (spec.providerID ?? '').endsWith(`/${i.id}`));
  return { name: metadata.name ?? '', type: metadata.labels?.['node.kubernetes.io/instance-type'] ?? '', allocatable: status.allocatable ?? {}, instanceId: instance?.id };
}

void t.test('a GPU pod and an EFA pod each get a node that has the device in its allocatable, and run there', async (t) => {
  const product = await withProduct(t);
  await product.apply(product.nodePoolYaml('accelerated', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, g, m, p] }`));
  // Kubernetes takes an extended resource's request only with an equal limit: the Deployment helper sets both.
  await createDeployment(product, { name: 'trainer', replicas: 1, cpu: '1', memory: '2Gi', resources: { [gpu]: '1' } });
  await createDeployment(product, { name: 'mpi', replicas: 1, cpu: '1', memory: '2Gi', resources: { [efa]: '1' } });

  const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((ty) => [ty.name, ty]));
  for (const [app, resource] of [['trainer', gpu], ['mpi', efa]] as const) {
    const node = await nodeOf(product, app);
    t.ok(Number(node.allocatable[resource] ?? '0') >= 1, `the ${app} pod runs on ${node.name} (${node.type}), whose allocatable has ${resource}: ${node.allocatable[resource] ?? 'none'}`);
    t.ok((catalog.get(node.type)?.capacity[resource] ?? 0) >= 1, `${node.type} has ${resource} in the catalog`);
    t.ok(node.instanceId, `${node.name} is a launched instance`);
    const { data, imageName: image } = await launchedFrom(product, node.instanceId ?? '');
    if (resource === gpu) t.match(image, /nvidia/, `the GPU node boots the accelerated image: ${image}`);
    if (resource === efa) {
      const types = (data?.NetworkInterfaces ?? []).map((n) => n.InterfaceType ?? 'interface');
      t.ok(types.includes('efa'), `the EFA pod's instance was launched from a template with an EFA interface: ${types.join(', ')}`);
    }
  }
  t.same(await overcommittedNodes(product), [], 'no node holds pods requesting more than it has');
});
