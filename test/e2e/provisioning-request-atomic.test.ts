import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';

/**
 * ProvisioningRequest, class best-effort-atomic-scale-up, on the real stack: 32 one-CPU pods are launched for all
 * together or not at all. Under a NodePool limit of 20 CPUs nothing launches and the request says why; once the limit
 * allows them, every node is launched, the request is Provisioned, and the 32 pods that consume it run on the booked
 * room without a further launch.
 */
const product = await withProduct(t);
const poolYaml = (cpuLimit: number): string => product.nodePoolYaml('batch', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge, 2xlarge] }`, `  limits: { cpu: "${String(cpuLimit)}" }`);
await product.apply(poolYaml(20));
await product.apply(`apiVersion: v1
kind: PodTemplate
metadata: { name: trainer, namespace: default }
template:
  metadata: { labels: { app: trainer } }
  spec:
    containers: [{ name: w, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`);

interface RequestCondition { type: string; status: string; reason: string; message: string }

async function conditionsOf(name: string): Promise<RequestCondition[]> {
  const r = await product.stack.kubectl(['get', 'provisioningrequest', name, '-n', 'default', '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as { status?: { conditions?: RequestCondition[] } }).status?.conditions ?? [] : [];
}

function provisioned(name: string, status: 'True' | 'False', timeoutMs = 120_000): Promise<RequestCondition[]> {
  return waitFor(`${name} to be Provisioned=${status}`, async () => {
    const conditions = await conditionsOf(name);
    return conditions.some((c) => c.type === 'Provisioned' && c.status === status) ? conditions : undefined;
  }, { timeoutMs, intervalMs: 500 });
}

const live = async (): Promise<number> => (await listInstances(product)).filter((i) => i.state === 'pending' || i.state === 'running').length;

async function nodeClaims(): Promise<number> {
  const r = await product.stack.kubectl(['get', 'nodeclaims', '-o', 'json']);
  return (JSON.parse(r.stdout) as { items: unknown[] }).items.length;
}

void t.test('32 pods that the NodePool limit cannot all hold get no node at all, and the request says why', async (t) => {
  await product.apply(`apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: { name: gang, namespace: default }
spec:
  provisioningClassName: best-effort-atomic-scale-up.autoscaling.x-k8s.io
  podSets: [{ podTemplateRef: { name: trainer }, count: 32 }]
`);
  const conditions = await provisioned('gang', 'False');
  t.match(conditions.find((c) => c.type === 'Provisioned'), { reason: 'CapacityIsNotFound' }, conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`).join('; '));
  // Two more passes (10 s apart) and nothing: all or none, and 20 CPUs hold fewer than 32 one-CPU pods.
  await new Promise((resolve) => setTimeout(resolve, 25_000));
  t.equal(await live(), 0, 'no instance was launched for part of the gang');
  t.equal(await nodeClaims(), 0, 'no NodeClaim was created');
});

void t.test('once the limit allows them, every node is launched together and the consuming pods run on the booked room', async (t) => {
  await product.apply(poolYaml(100));
  const conditions = await provisioned('gang', 'True', 240_000);
  t.match(conditions.find((c) => c.type === 'Provisioned'), { status: 'True' });
  const instances = await live();
  const claims = await nodeClaims();
  t.ok(instances > 0 && instances === claims, `${String(instances)} instances, one per NodeClaim, launched for the gang`);
  await createDeployment(product, { name: 'trainer', replicas: 32, cpu: '1', memory: '1Gi', annotations: { 'autoscaling.x-k8s.io/consume-provisioning-request': 'gang' } });
  const { pods, nodes } = await waitForRunning(product, 'trainer', 32, 240_000);
  t.equal(pods.length, 32, 'all 32 pods of the gang run');
  t.equal(await nodeClaims(), claims, 'on the nodes launched for the request: no further NodeClaim');
  t.ok([...nodes.keys()].length <= claims, `on ${String(nodes.size)} of the request's ${String(claims)} nodes`);
  t.same(await overcommittedNodes(product), [], 'no node holds more than its allocatable');
});
