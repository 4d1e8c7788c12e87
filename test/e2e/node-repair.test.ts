import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { listClaims, scenarioPods } from './disruption-support.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';
import { applyScenarioPool } from './scenario-pools.js';

/**
 * Node repair on the real stack (`--feature-gates NodeRepair=true`). kwok plays a kubelet that broke: a node annotated
 * `test.nodesmith.io/not-ready-since` reports Ready=False since that time (test/stack/kwok-stages.yaml), so a node can
 * be "NotReady for 31 minutes" without the test waiting half an hour; nodesmith reads the condition's
 * lastTransitionTime exactly as it would a real kubelet's.
 */
const product = await withProduct(t, { nodeRepair: true });
const notReadySince = 'test.nodesmith.io/not-ready-since';
const minute = 60_000;

async function setNotReadySince(node: string, since: string | null): Promise<void> {
  await product.core.patchNode({ name: node, body: { metadata: { annotations: { [notReadySince]: since } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
}

async function readyStatus(node: string): Promise<string | undefined> {
  const n = await product.core.readNode({ name: node }).catch(() => undefined);
  return n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

async function eventsAbout(name: string): Promise<k8s.CoreV1Event[]> {
  return (await product.core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${name}` })).items;
}

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

const onePerNode = (app: string): k8s.V1Affinity => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app } } }] },
});

interface Replaced {
  readonly broken: string;
  readonly replacementNodes: ReadonlyMap<string, k8s.V1Node>;
  readonly oldPod: string | undefined;
  readonly newPod: string | undefined;
  readonly claimName: string;
  readonly instanceId: string | undefined;
}

/** The pod moved to a new node of the same pool, the repair said why, the instance went, and the metrics counted it. */
async function assertReplaced(t: Test, r: Replaced): Promise<void> {
  const [replacement = ''] = r.replacementNodes.keys();
  t.not(replacement, r.broken, 'the pod runs on a new node');
  t.not(r.newPod, r.oldPod, 'it is a new pod: the old one was deleted although its PDB (minAvailable 1 of 1) refuses every eviction');
  t.equal(r.replacementNodes.get(replacement)?.metadata?.labels?.['karpenter.sh/nodepool'], 'repair');
  const repairEvents = (await eventsAbout(r.claimName)).filter((e) => e.reason === 'NodeRepair');
  t.match(repairEvents[0]?.message ?? '', /^Ready=False since .*, beyond its 30m toleration: deleting the NodeClaim forcefully/, 'a NodeRepair Event on the NodeClaim says why');
  t.ok((await eventsAbout(r.broken)).some((e) => e.reason === 'NodeRepair' && e.type === 'Warning'), 'and one on the Node');
  await waitFor('the broken instance terminated', async () => {
    const instance = (await listInstances(product)).find((i) => i.id === r.instanceId);
    return instance === undefined || instance.state === 'terminated' ? true : undefined;
  }, { timeoutMs: 60_000 });
  const m = await metrics();
  t.match(m, /nodesmith_nodeclaims_disrupted_total\{nodepool="repair",reason="unhealthy",capacity_type="[a-z-]+",consolidation_policy="",termination_mode="forceful"\} 1/);
  t.match(m, /nodesmith_nodeclaims_unhealthy_disrupted_total\{condition="ready",nodepool="repair",capacity_type="[a-z-]+",image_id="ami-[0-9a-f]+"\} 1/);
}

await t.test('a node NotReady beyond its 30-minute toleration is replaced, and its PDB-guarded pod runs again on a new node', async (t) => {
  await applyScenarioPool(product, 'repair');
  await product.kc.makeApiClient(k8s.PolicyV1Api).createNamespacedPodDisruptionBudget({
    namespace: 'default', body: { metadata: { name: 'repair-db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'repair-db' } } } },
  });
  await createDeployment(product, { name: 'repair-db', replicas: 1, cpu: '250m', memory: '256Mi', ...scenarioPods('repair') });
  const before = await waitForRunning(product, 'repair-db', 1, 240_000);
  const [broken = ''] = before.nodes.keys();
  const oldPod = before.pods[0]?.metadata?.uid;
  const claim = (await listClaims(product)).find((c) => c.nodeName === broken);
  t.ok(claim, `the node ${broken} has its NodeClaim`);

  const brokeAt = Date.now();
  await setNotReadySince(broken, new Date(brokeAt - 31 * minute).toISOString());
  await waitFor('the node to report Ready=False', async () => ((await readyStatus(broken)) === 'False' ? true : undefined), { timeoutMs: 30_000 });
  const notReadyMs = Date.now() - brokeAt;
  await waitFor('the NodeClaim and the Node to be gone', async () => {
    const claimLeft = (await listClaims(product)).some((c) => c.name === claim?.name);
    const nodeLeft = (await readyStatus(broken)) !== undefined;
    return claimLeft || nodeLeft ? undefined : true;
  }, { timeoutMs: 120_000, intervalMs: 250 });
  const goneMs = Date.now() - brokeAt;
  const after = await waitForRunning(product, 'repair-db', 1, 240_000);
  const runningMs = Date.now() - brokeAt;
  t.comment(`node reported NotReady ${String(notReadyMs)} ms, NodeClaim and Node gone ${String(goneMs)} ms, pod Running on its replacement ${String(runningMs)} ms after the kubelet "broke"`);

  await assertReplaced(t, { broken, replacementNodes: after.nodes, oldPod, newPod: after.pods[0]?.metadata?.uid, claimName: claim?.name ?? '', instanceId: claim?.instanceId });
});

await t.test('repair waits while more than 20% of a NodePool is unhealthy, and resumes when enough of it recovers', async (t) => {
  await applyScenarioPool(product, 'fragile');
  await createDeployment(product, { name: 'fragile', replicas: 2, cpu: '250m', memory: '256Mi', affinity: onePerNode('fragile'), ...scenarioPods('fragile') });
  const before = await waitForRunning(product, 'fragile', 2, 240_000);
  const [first = '', second = ''] = [...before.nodes.keys()].sort();
  const since = new Date(Date.now() - 31 * minute).toISOString();
  await setNotReadySince(first, since);
  await setNotReadySince(second, since);

  const blocked = await waitFor('NodeRepairBlocked on both nodes', async () => {
    const events = [...(await eventsAbout(first)), ...(await eventsAbout(second))].filter((e) => e.reason === 'NodeRepairBlocked');
    return new Set(events.map((e) => e.involvedObject.name)).size === 2 ? events : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  t.equal(blocked[0]?.message, 'more than 20% of the nodes in nodepool "fragile" are unhealthy (2 of 2): node repair waits');
  t.ok((await eventsAbout('fragile')).some((e) => e.reason === 'NodeRepairBlocked' && e.involvedObject.kind === 'NodePool'), 'the NodePool says so too');
  const fragileClaims = async (): Promise<string[]> => (await listClaims(product)).filter((c) => c.nodePool === 'fragile' && !c.deleting).map((c) => c.nodeName ?? '').sort();
  t.same(await fragileClaims(), [first, second], 'both NodeClaims stay while repair is blocked');

  await setNotReadySince(second, null);
  await waitFor(`${second} Ready again`, async () => ((await readyStatus(second)) === 'True' ? true : undefined), { timeoutMs: 30_000 });
  await waitFor(`${first} repaired`, async () => ((await fragileClaims()).includes(first) ? undefined : true), { timeoutMs: 60_000, intervalMs: 500 });
  t.ok((await fragileClaims()).includes(second), 'with 1 of 2 unhealthy (within the rounded-up 20%), only the broken node is replaced');
  // The repaired node's pod stays Running while it terminates: wait for two pods that are not leaving.
  const after = await waitFor('two pods of fragile Running, neither on the repaired node', async () => {
    const list = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=fragile' });
    const running = list.items.filter((p) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp == null && p.spec?.nodeName !== undefined);
    return running.length === 2 && running.every((p) => p.spec?.nodeName !== first) ? running : undefined;
  }, { timeoutMs: 240_000, intervalMs: 500 });
  t.same(after.filter((p) => p.spec?.nodeName === first), [], 'both pods run, none on the repaired node');
});
