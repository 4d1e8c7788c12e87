import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

/**
 * ProvisioningRequest, class check-capacity, on the real stack: the CRD nodesmith ships (the autoscaler API module's
 * own file, installed with manifests/crds), the informer, the controller's conditions. A request is answered from the
 * nodes there are: Provisioned=False while no node holds its pods (though the NodePool could launch one), True once a
 * Deployment's node has room for them; a request larger than that room stays False. No instance is ever launched for
 * a request: the only instance is the Deployment's.
 */
const product = await withProduct(t);
await product.apply(product.nodePoolYaml('default', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge] }`));

await product.apply(`apiVersion: v1
kind: PodTemplate
metadata: { name: one-cpu, namespace: default }
template:
  metadata: { labels: { app: batch-worker } }
  spec:
    containers: [{ name: w, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`);

function request(name: string, count: number): string {
  return `apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: { name: ${name}, namespace: default }
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  podSets: [{ podTemplateRef: { name: one-cpu }, count: ${String(count)} }]
`;
}

interface RequestCondition { type: string; status: string; reason: string; message: string }

async function conditionsOf(name: string): Promise<RequestCondition[]> {
  const r = await product.stack.kubectl(['get', 'provisioningrequest', name, '-n', 'default', '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as { status?: { conditions?: RequestCondition[] } }).status?.conditions ?? [] : [];
}

/** Waits until the request's Provisioned condition has this status, and returns its conditions. */
function provisioned(name: string, status: 'True' | 'False'): Promise<RequestCondition[]> {
  return waitFor(`${name} to be Provisioned=${status}`, async () => {
    const conditions = await conditionsOf(name);
    return conditions.some((c) => c.type === 'Provisioned' && c.status === status) ? conditions : undefined;
  }, { timeoutMs: 120_000, intervalMs: 500 });
}

async function launched(): Promise<number> {
  return (await listInstances(product)).filter((i) => i.state === 'pending' || i.state === 'running').length;
}

async function nodeClaims(): Promise<number> {
  const r = await product.stack.kubectl(['get', 'nodeclaims', '-o', 'json']);
  return (JSON.parse(r.stdout) as { items: unknown[] }).items.length;
}

void t.test('with no node, a check-capacity request is not Provisioned, and nothing is launched for it', async (t) => {
  await product.apply(request('two-workers', 2));
  const conditions = await provisioned('two-workers', 'False');
  t.match(conditions, [{ type: 'Accepted', status: 'True', reason: 'Accepted' }, { type: 'Provisioned', status: 'False', reason: 'CapacityIsNotFound', message: /0 of 2 pods fit the existing nodes/ }]);
  // Two passes of the controller (10 s each), then look: a check never plans, so nothing launches.
  await new Promise((resolve) => setTimeout(resolve, 25_000));
  t.equal(await launched(), 0, 'no instance launched');
  t.equal(await nodeClaims(), 0, 'no NodeClaim created');
});

void t.test('once a Deployment\'s node has room, the same request is Provisioned; a larger one is not, and still nothing more launches', async (t) => {
  await createDeployment(product, { name: 'small', replicas: 1, cpu: '250m', memory: '256Mi' });
  const { nodes } = await waitForRunning(product, 'small', 1);
  t.equal(nodes.size, 1);
  const instances = await launched();
  t.equal(instances, 1, 'the Deployment launched one m6i.xlarge');
  // An m6i.xlarge holds three more one-CPU pods beside the small one: two fit, ten do not.
  const found = await provisioned('two-workers', 'True');
  t.match(found.find((c) => c.type === 'Provisioned'), { reason: 'CapacityIsFound', message: 'Capacity is found in the cluster: all 2 pods fit the existing nodes' });
  await product.apply(request('ten-workers', 10));
  const notFound = await provisioned('ten-workers', 'False');
  t.match(notFound.find((c) => c.type === 'Provisioned'), { reason: 'CapacityIsNotFound', message: /of 10 pods fit the existing nodes/ });
  await new Promise((resolve) => setTimeout(resolve, 25_000));
  t.equal(await launched(), instances, 'no instance launched for either request');
  t.equal(await nodeClaims(), 1, 'only the Deployment\'s NodeClaim');
  t.equal((await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=batch-worker' })).items.length, 0, 'no pod of the template was created');
});
