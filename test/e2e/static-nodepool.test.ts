import t from 'tap';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { ApiConnection } from '../../provisioner/kube/api-connection.js';
import { loadKubeConfig } from '../../provisioner/kube/kube-config.js';
import { KubeRest } from '../../provisioner/kube/kube-rest.js';
import { KubeNodeClaimClient } from '../../provisioner/kube/nodeclaim-client.js';
import { findCondition } from '../../domain/api/status-conditions.js';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

// A static NodePool of 3 on the real stack with the StaticCapacity gate on: it holds 3 nodes with no pod asking
// for them, scales to 5 and back to 3 through the scale subresource (as `kubectl scale` does), and is replaced one
// node at a time after a template change drifts it. Drift is rechecked every 20 s instead of 5 min.
const product = await withProduct(t, { staticCapacity: true, driftRecheckMs: 20_000 });
const api = new KubeRest(new ApiConnection(loadKubeConfig(product.stack.kubeconfigPath, { env: {} })));
t.teardown(() => api.close());
const nodeClaims = new KubeNodeClaimClient(api);

const requirements = `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, c5.large] }`;

async function kubectl(args: readonly string[]): Promise<string> {
  const r = await product.stack.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The pool's NodeClaims that are not being deleted. */
async function liveClaims(): Promise<NodeClaim[]> {
  return (await nodeClaims.list()).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === 'fixed' && c.metadata.deletionTimestamp === undefined);
}

/** Waits until the pool has exactly `count` live NodeClaims, every one launched and its Node there; returns them. */
async function waitForNodes(count: number, timeoutMs = 180_000): Promise<NodeClaim[]> {
  return waitFor(`${String(count)} launched NodeClaims of the static pool`, async () => {
    const claims = await liveClaims();
    if (claims.length !== count || claims.some((c) => (c.status?.nodeName ?? '') === '')) return undefined;
    const nodes = new Set((await product.core.listNode({ labelSelector: 'karpenter.sh/nodepool=fixed' })).items.map((n) => n.metadata?.name ?? ''));
    return claims.every((c) => nodes.has(c.status?.nodeName ?? '')) ? claims : undefined;
  }, { timeoutMs, intervalMs: 1000 });
}

/** Waits until every instance moto holds for the pool is one of these nodes: the others terminated. */
async function waitForInstances(nodeNames: ReadonlySet<string>): Promise<void> {
  await waitFor(`the static pool's instances to be exactly ${[...nodeNames].join(', ')}`, async () => {
    const running = (await listInstances(product)).filter((i) => i.tags['karpenter.sh/nodepool'] === 'fixed' && (i.state === 'running' || i.state === 'pending'));
    return running.length === nodeNames.size && running.every((i) => nodeNames.has(i.id)) ? true : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
}

async function statusNodes(count: number): Promise<void> {
  await waitFor(`status.nodes ${String(count)}`, async () => ((await kubectl(['get', 'nodepool', 'fixed', '-o', 'jsonpath={.status.nodes}'])).trim() === String(count) ? true : undefined), { timeoutMs: 120_000, intervalMs: 1000 });
}

const names = (claims: readonly NodeClaim[]): Set<string> => new Set(claims.map((c) => c.status?.nodeName ?? ''));

void t.test('a static NodePool of 3 holds 3 nodes, scales to 5 and back to 3, and is replaced one for one after a drift', async (t) => {
  await product.apply(product.nodePoolYaml('fixed', requirements, '  replicas: 3\n  limits: { nodes: "6" }'));
  const three = await waitForNodes(3);
  t.equal(three.length, 3, 'three nodes with no pod asking for them');
  await waitForInstances(names(three));
  await statusNodes(3);
  t.pass('status.nodes says 3, which the scale subresource reads as the current replicas');

  // Pods that fit the static nodes run there; a pod no static node can hold gets no extra node from the planner.
  await createDeployment(product, { name: 'web', replicas: 3, cpu: '200m', memory: '256Mi', nodeSelector: { 'karpenter.sh/nodepool': 'fixed' } });
  await createDeployment(product, { name: 'huge', replicas: 1, cpu: '30', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': 'fixed' } });
  await waitForRunning(product, 'web', 3);
  await waitFor('the oversized pod to be told no node can be launched for it', async () => (await product.core.listNamespacedEvent({ namespace: 'default' })).items
    .find((e) => e.involvedObject.name?.startsWith('huge-') === true && e.reason === 'FailedProvisioning'), { timeoutMs: 60_000, intervalMs: 1000 });
  t.equal((await liveClaims()).length, 3, 'the planner opened no node in the static pool for the pending pod');

  t.match(await kubectl(['scale', 'nodepool', 'fixed', '--replicas=5']), /scaled/);
  const five = await waitForNodes(5);
  await waitForInstances(names(five));
  await statusNodes(5);
  t.pass('kubectl scale --replicas=5 gives 5 nodes and status.nodes 5');

  const withPods = new Set((await waitForRunning(product, 'web', 3)).pods.map((p) => p.spec?.nodeName ?? ''));
  await kubectl(['scale', 'nodepool', 'fixed', '--replicas=3']);
  const back = await waitForNodes(3);
  await waitForInstances(names(back));
  await statusNodes(3);
  t.ok([...withPods].every((n) => names(back).has(n)), 'the nodes removed were empty ones: every node running web pods stays');
  t.equal((await waitForRunning(product, 'web', 3, 60_000)).pods.length, 3, 'no pod was lost');

  await kubectl(['patch', 'nodepool', 'fixed', '--type', 'merge', '-p', '{"spec":{"template":{"metadata":{"labels":{"team":"web"}}}}}']);
  await waitFor('the static NodeClaims to drift (NodePoolDrifted)', async () => {
    const claims = await liveClaims();
    return claims.some((c) => findCondition(c, 'Drifted')?.status === 'True') ? true : undefined;
  }, { timeoutMs: 90_000, intervalMs: 1000 });
  const before = names(back);
  const replaced = await waitFor('every drifted node replaced by one carrying the new label', async () => {
    const claims = await waitForNodes(3, 5_000).catch(() => undefined);
    if (claims === undefined) return undefined;
    return claims.every((c) => c.metadata.labels?.['team'] === 'web' && !before.has(c.status?.nodeName ?? '')) ? claims : undefined;
  }, { timeoutMs: 480_000, intervalMs: 2000 });
  await waitForInstances(names(replaced));
  t.equal(replaced.length, 3, 'still 3 nodes, all new');
  t.equal((await waitForRunning(product, 'web', 3, 120_000)).pods.length, 3, 'the pods run again on the replacements');
  const launchedEvents = (await product.core.listEventForAllNamespaces()).items.filter((e) => e.reason === 'DisruptionLaunching' && e.involvedObject.kind === 'NodeClaim');
  t.ok(launchedEvents.length >= 3, `each drifted node got its replacement first (${String(launchedEvents.length)} DisruptionLaunching Events)`);
});
