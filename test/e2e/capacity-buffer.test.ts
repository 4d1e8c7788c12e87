import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

/**
 * CapacityBuffer on the real stack (`--feature-gates CapacityBuffer=true`): the CRD nodesmith ships, the webhook,
 * the controller's status, and the point of it all: a burst of pods starts on nodes the buffer kept warm, with no
 * launch between the Deployment and its pods Running. The same burst on a NodePool without a buffer is timed too,
 * and both times are printed (never asserted). Two alike NodePools, so the cold burst cannot use the warm room.
 */
const product = await withProduct(t, { capacityBuffer: true });
for (const pool of ['cold', 'warm']) {
  await product.apply(product.nodePoolYaml(pool, `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge] }`));
}

const burst = 10;

const podTemplate = `apiVersion: v1
kind: PodTemplate
metadata: { name: one-cpu, namespace: default }
template:
  metadata: { labels: { app: warm-room } }
  spec:
    nodeSelector: { karpenter.sh/nodepool: warm }
    containers: [{ name: app, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`;

const buffer = `apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: { name: warm, namespace: default }
spec:
  podTemplateRef: { name: one-cpu }
  replicas: ${String(burst)}
`;

interface BufferCondition { type: string; status: string; reason: string; message: string }
interface BufferStatus { replicas?: number; podTemplateRef?: { name: string }; podTemplateGeneration?: number; provisioningStrategy?: string; conditions?: BufferCondition[] }
interface Claim { metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> }; status?: { nodeName?: string; conditions?: { type: string; status: string }[] } }

async function bufferStatus(): Promise<BufferStatus | undefined> {
  const r = await product.stack.kubectl(['get', 'capacitybuffer', 'warm', '-n', 'default', '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as { status?: BufferStatus }).status : undefined;
}

async function claimsOf(pool: string): Promise<Claim[]> {
  const r = await product.stack.kubectl(['get', 'nodeclaims', '-l', `karpenter.sh/nodepool=${pool}`, '-o', 'json']);
  return (JSON.parse(r.stdout) as { items: Claim[] }).items;
}

const isReady = (c: Claim): boolean => c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') === true;

/** Creates a Deployment of `burst` one-CPU pods on the NodePool, and the seconds until every pod runs. */
async function timeToRunning(app: string, pool: string): Promise<{ seconds: number; nodes: Set<string>; createdAt: number }> {
  const createdAt = Date.now();
  await createDeployment(product, { name: app, replicas: burst, cpu: '1', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': pool } });
  const { nodes } = await waitForRunning(product, app, burst);
  return { seconds: (Date.now() - createdAt) / 1000, nodes: new Set(nodes.keys()), createdAt };
}

const timings: { without?: number; with?: number } = {};

void t.test('without a buffer, a burst of 10 one-CPU pods waits for the nodes launched for it', async (t) => {
  const cold = await timeToRunning('cold-burst', 'cold');
  timings.without = cold.seconds;
  const launched = (await claimsOf('cold')).filter((c) => Date.parse(c.metadata.creationTimestamp) >= Math.floor(cold.createdAt / 1000) * 1000);
  t.ok(launched.length > 0, `${String(launched.length)} NodeClaims were launched on the burst's critical path`);
});

void t.test('a buffer of 10 one-CPU pods is admitted, resolved, and its room launched and kept', async (t) => {
  await product.apply(podTemplate);
  await product.apply(buffer);
  const status = await waitFor('the buffer to fit on existing capacity', async () => {
    const s = await bufferStatus();
    return s?.conditions?.some((c) => c.type === 'Provisioning' && c.status === 'True') === true ? s : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  t.match(status, {
    replicas: burst, podTemplateRef: { name: 'one-cpu' }, provisioningStrategy: 'buffer.x-k8s.io/active-capacity',
    conditions: [{ type: 'ReadyForProvisioning', status: 'True', reason: 'Resolved' }, { type: 'Provisioning', status: 'True', reason: 'FitsExistingCapacity' }],
  });
  const claims = await waitFor('the warm NodeClaims to be Ready', async () => {
    const all = await claimsOf('warm');
    return all.length > 0 && all.every(isReady) ? all : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  const pods = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=warm-room' });
  t.equal(pods.items.length, 0, 'the room never reached the API server as pods');
  // Emptiness runs every 10 s with consolidateAfter 0s: a node holding only room would be gone by now if it were "empty".
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  t.same((await claimsOf('warm')).map((c) => c.metadata.name).sort(), claims.map((c) => c.metadata.name).sort(), 'no warm node was removed as empty');
});

void t.test('a Deployment of 10 such pods runs on the warm nodes with no launch on its critical path, then the room is launched again', async (t) => {
  const before = new Set((await claimsOf('warm')).map((c) => c.status?.nodeName ?? ''));
  const warm = await timeToRunning('warm-burst', 'warm');
  timings.with = warm.seconds;
  t.same([...warm.nodes].filter((n) => !before.has(n)), [], 'every pod runs on a node that was there before the Deployment');
  const restored = await waitFor('the buffer\'s room to be launched again', async () => {
    const all = await claimsOf('warm');
    return all.length > before.size && all.every(isReady) ? all : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  t.ok(restored.length > before.size, `${String(restored.length - before.size)} NodeClaims launched after the burst, to keep the room`);
  await waitFor('the buffer to fit on existing capacity again', async () => ((await bufferStatus())?.conditions?.some((c) => c.type === 'Provisioning' && c.status === 'True') === true ? true : undefined), { timeoutMs: 120_000, intervalMs: 1000 });
  // 10 burst pods and 10 pods of room, three one-CPU pods to an m6i.xlarge: 7 nodes; a launch repeated for room
  // already launched would show here.
  const warmClaims = await claimsOf('warm');
  t.ok(warmClaims.length <= 7, `the burst and the room hold ${String(warmClaims.length)} warm nodes, no more than the 7 they need`);
  t.comment(`time to Running for ${String(burst)} one-CPU pods: without buffer ${timings.without?.toFixed(1) ?? '?'} s, with buffer ${warm.seconds.toFixed(1)} s`);
});
