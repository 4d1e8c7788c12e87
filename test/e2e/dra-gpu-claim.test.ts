import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { startDraKwokDriver } from '../stack/dra-kwok-driver.js';
import { waitFor } from '../stack/wait-for.js';
import { listInstances, withProduct } from './e2e-support.js';

/**
 * A pod asks for a GPU through a ResourceClaim (DRA, resource.k8s.io/v1) rather than `nvidia.com/gpu`. nodesmith plans a
 * GPU node and publishes its virtual node's ResourceSlices; kube-scheduler's own DRA plugin allocates the claim there
 * and binds through the extender, which launches the instance. Karpenter's kwok DRA driver then publishes the real
 * node's slices (as NVIDIA's driver would on the instance), nodesmith hands the claim over to the real node's GPU,
 * and once the pod is gone the empty node is consolidated away.
 */
const minutes = (n: number): number => n * 60_000;
const gpuTypes = ['g5.xlarge', 'g5.2xlarge'];

const draConfig = `apiVersion: test.karpenter.sh/v1alpha1
kind: DRAConfig
metadata: { name: nvidia-gpus }
spec:
  driver: gpu.nvidia.com
  pools:
    - name: a10g
      nodeSelectorTerms: [{ matchExpressions: [{ key: node.kubernetes.io/instance-type, operator: In, values: ${JSON.stringify(gpuTypes)} }] }]
      resourceSlices:
        - devices:
            - name: gpu-0
              attributes: { type: { string: gpu }, brand: { string: Nvidia }, productName: { string: NVIDIA A10G }, index: { int: 0 } }
              capacity: { memory: { value: 22888Mi } }
`;

const claimObjects = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: { name: gpu.nvidia.com }
spec:
  selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'" } }]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: { name: one-gpu, namespace: default }
spec:
  spec:
    devices:
      requests: [{ name: gpu, exactly: { deviceClassName: gpu.nvidia.com } }]
`;

const gpuPod: k8s.V1Pod = {
  metadata: { name: 'trainer', namespace: 'default' },
  spec: {
    resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
    containers: [{ name: 'main', image: 'trainer', resources: { requests: { cpu: '1', memory: '2Gi' }, claims: [{ name: 'gpu' }] } }],
  },
};

interface Allocation { devices?: { results?: { driver: string; pool: string; device: string }[] }; nodeSelector?: { nodeSelectorTerms?: { matchFields?: { values?: string[] }[] }[] } }
interface Claim { metadata: { name: string }; status?: { allocation?: Allocation; reservedFor?: { name: string }[] } }
interface Slice { metadata: { name: string; labels?: Record<string, string> }; spec: { driver: string; nodeName?: string; pool: { name: string }; devices: { name: string }[] } }

const product = await withProduct(t);
const driver = await startDraKwokDriver(product.stack, draConfig);
t.teardown(async () => {
  if (!t.passing()) t.comment(`dra-kwok-driver log (${driver.component.logPath}):\n${driver.component.tail(60)}`);
  await driver.stop();
});
/** What kube-scheduler, the claim controller and nodesmith made of the pod, for a failing run's report. */
async function diagnose(t: Test): Promise<void> {
  for (const args of [['get', 'pod', 'trainer', '-o', 'yaml'], ['get', 'events', '-A', '--sort-by=.lastTimestamp'], ['get', 'resourceclaims,resourceslices,deviceclasses', '-A', '-o', 'yaml'], ['get', 'nodes', '--show-labels']]) {
    const r = await product.stack.kubectl(args);
    t.comment(`kubectl ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  }
}
const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);
const claimOf = async (name: string): Promise<Claim> => (await custom.getNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: 'default', plural: 'resourceclaims', name })) as Claim;
const slices = async (): Promise<Slice[]> => ((await custom.listClusterCustomObject({ group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices' })) as { items: Slice[] }).items;
const pinnedNode = (allocation: Allocation | undefined): string | undefined => allocation?.nodeSelector?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];
const devicesOf = (claim: Claim): { driver: string; pool: string; device: string }[] => claim.status?.allocation?.devices?.results ?? [];
const reservedFor = (claim: Claim): string[] => (claim.status?.reservedFor ?? []).map((r) => r.name);

/** Records every virtual node's slice seen, polling, until the returned stop is called. */
function watchVirtualSlices(seen: Set<string>): () => void {
  const timer = setInterval(() => {
    slices().then((all) => { for (const s of all) if (s.metadata.labels?.['nodesmith.io/virtual-node'] !== undefined) seen.add(`${s.spec.nodeName ?? ''} ${s.spec.driver} ${s.spec.devices.map((d) => d.name).join(',')}`); }, () => undefined);
  }, 250);
  return () => { clearInterval(timer); };
}

function runningPod(name: string): Promise<k8s.V1Pod> {
  return waitFor(`${name} to run on a launched node`, async () => {
    const pod = await product.core.readNamespacedPod({ namespace: 'default', name });
    return pod.status?.phase === 'Running' && (pod.spec?.nodeName ?? '') !== '' ? pod : undefined;
  }, { timeoutMs: minutes(4), intervalMs: 500 });
}

/** The node a pod runs on: its name, instance type and the instance behind it. */
async function nodeOf(pod: k8s.V1Pod): Promise<{ name: string; type: string; instanceId: string }> {
  const name = pod.spec?.nodeName ?? '';
  const node = await product.core.readNode({ name });
  return { name, type: node.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? '', instanceId: node.spec?.providerID?.split('/').at(-1) ?? '' };
}

async function waitGone(nodeName: string, instanceId: string): Promise<void> {
  await waitFor(`the empty GPU node ${nodeName} to be removed`, async () => ((await product.core.listNode()).items.some((n) => n.metadata?.name === nodeName) ? undefined : true), { timeoutMs: minutes(3), intervalMs: 1_000 });
  await waitFor(`instance ${instanceId} to be terminated`, async () => ((await listInstances(product)).find((i) => i.id === instanceId)?.state === 'terminated' ? true : undefined), { timeoutMs: minutes(1), intervalMs: 1_000 });
}

void t.test('a pod with a GPU ResourceClaim gets a launched node with the device allocated by kube-scheduler, and the node is removed after the pod ends', async (t) => {
  await product.apply(product.nodePoolYaml('gpus', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: node.kubernetes.io/instance-type, operator: In, values: ${JSON.stringify(gpuTypes)} }`, `  disruption: { consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 5s }`));
  await product.apply(claimObjects);
  t.teardown(async () => { if (!t.passing()) await diagnose(t); });
  const virtualSlices = new Set<string>();
  t.teardown(watchVirtualSlices(virtualSlices));
  await product.core.createNamespacedPod({ namespace: 'default', body: gpuPod });

  const running = await runningPod('trainer');
  const node = await nodeOf(running);
  t.ok(gpuTypes.includes(node.type), `it runs on ${node.name}, a ${node.type} (a GPU type)`);
  t.ok((await listInstances(product)).some((i) => i.id === node.instanceId), `${node.name} is the launched instance ${node.instanceId}`);
  t.ok([...virtualSlices].some((s) => s.includes('gpu.nvidia.com gpu-0')), `its virtual node published the GPU's ResourceSlice first: ${[...virtualSlices].join('; ')}`);

  const claimName = running.status?.resourceClaimStatuses?.find((s) => s.name === 'gpu')?.resourceClaimName ?? '';
  t.ok(claimName, `the claim generated from the template: ${claimName}`);
  const allocated = await claimOf(claimName);
  t.same(devicesOf(allocated).map((r) => [r.driver, r.device]), [['gpu.nvidia.com', 'gpu-0']], 'kube-scheduler allocated one GPU to the claim');
  t.same(reservedFor(allocated), ['trainer'], 'and reserved the claim for the pod');

  const handedOver = await waitFor('the claim to be handed over to the real node\'s GPU', async () => {
    const claim = await claimOf(claimName);
    return pinnedNode(claim.status?.allocation) === node.name ? claim : undefined;
  }, { timeoutMs: minutes(2), intervalMs: 1_000 });
  const published = (await slices()).filter((s) => s.spec.nodeName === node.name && s.spec.driver === 'gpu.nvidia.com').flatMap((s) => s.spec.devices.map((d) => `${s.spec.pool.name}/${d.name}`));
  t.same(devicesOf(handedOver).map((r) => `${r.pool}/${r.device}`), published, 'its allocation names the device the real node\'s driver published');
  t.same(reservedFor(handedOver), ['trainer'], 'still reserved for the pod');
  // The garbage collector removes a virtual node's slices with the Node.
  await waitFor('the virtual node\'s slices to go with it', async () => ((await slices()).some((s) => s.metadata.labels?.['nodesmith.io/virtual-node'] !== undefined) ? undefined : true), { timeoutMs: minutes(1), intervalMs: 1_000 });
  t.pass('no virtual node\'s slice is left');

  await product.core.deleteNamespacedPod({ namespace: 'default', name: 'trainer', gracePeriodSeconds: 0 });
  await waitGone(node.name, node.instanceId);
  t.pass(`${node.name} and its instance are gone after the pod ended`);
});
