import t, { type Test } from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

/**
 * NodeOverlay on the real stack (`--feature-gates NodeOverlay=true`): the CRD nodesmith ships, the webhook's
 * validation, the controller's status conditions, and a savings plan that moves the next launch to the discounted
 * type. Two alike NodePools (one per phase, so a node left over from the first phase cannot take the second's pod)
 * allow m6i.large ($0.096/h) and m7i.large ($0.1008/h) on-demand; a pod (1 CPU, 5Gi) fills a node.
 */
const product = await withProduct(t, { nodeOverlay: true });
for (const pool of ['before', 'after']) {
  await product.apply(product.nodePoolYaml(pool, `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i, m7i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [large] }`));
}

const savingsPlan = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: { name: savings-plan }
spec:
  requirements: [{ key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i] }]
  priceAdjustment: "-30%"
`;

interface OverlayCondition { type: string; status: string; reason: string; message: string }

async function conditionsOf(name: string): Promise<OverlayCondition[] | undefined> {
  const r = await product.stack.kubectl(['get', 'nodeoverlay', name, '-o', 'json']);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as { status?: { conditions?: OverlayCondition[] } }).status?.conditions;
}

async function validation(name: string): Promise<OverlayCondition> {
  return waitFor(`${name}'s ValidationSucceeded condition`, async () => (await conditionsOf(name))?.find((c) => c.type === 'ValidationSucceeded'), { timeoutMs: 30_000 });
}

/** The type of the instance launched for one pod of a new Deployment on the NodePool named like it. */
async function launchedTypeFor(t: Test, app: string): Promise<string | undefined> {
  const before = new Set((await listInstances(product)).map((i) => i.id));
  await createDeployment(product, { name: app, replicas: 1, cpu: '1', memory: '5Gi', nodeSelector: { 'karpenter.sh/nodepool': app } });
  const { nodes } = await waitForRunning(product, app, 1);
  const [node] = nodes.values();
  const type = node?.metadata?.labels?.['node.kubernetes.io/instance-type'];
  const instance = (await listInstances(product)).find((i) => node?.spec?.providerID?.endsWith(`/${i.id}`) === true);
  t.notOk(instance === undefined || before.has(instance.id), `the pod runs on an instance launched for it (${instance?.id ?? 'none'})`);
  t.equal(instance?.type, type, `the EC2 instance behind ${node?.metadata?.name ?? '?'} is a ${type ?? '?'}`);
  return type;
}

void t.test('without an overlay the cheaper list price wins: m6i.large', async (t) => {
  t.equal(await launchedTypeFor(t, 'before'), 'm6i.large');
});

void t.test('a savings-plan NodeOverlay of -30% on m7i is admitted, reported valid, and moves the next launch to m7i.large', async (t) => {
  await product.apply(savingsPlan);
  t.match(await validation('savings-plan'), { status: 'True', reason: 'ValidationSucceeded' });
  t.equal(await launchedTypeFor(t, 'after'), 'm7i.large');
});

void t.test('the webhook refuses an overlay that selects by a NodePool label, naming the field', async (t) => {
  const refused = product.apply(`apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: { name: by-team }
spec:
  requirements: [{ key: team, operator: In, values: [a] }]
  price: "0.01"
`);
  await t.rejects(refused, /spec\.requirements\[0\]\.key: selecting by "team" is not supported yet by nodesmith/);
});

void t.test('two overlays of the same weight that price the same offerings: one applies, the other reports the Conflict', async (t) => {
  const overlay = (name: string, price: string): string => `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: { name: ${name} }
spec:
  requirements: [{ key: karpenter.k8s.aws/instance-family, operator: In, values: [c7i] }]
  price: "${price}"
  weight: 5
`;
  await product.apply(`${overlay('clash-a', '0.01')}---\n${overlay('clash-b', '0.02')}`);
  t.match(await validation('clash-b'), { status: 'True' });
  const loser = await waitFor('clash-a to report its conflict', async () => {
    const c = await validation('clash-a');
    return c.status === 'False' ? c : undefined;
  }, { timeoutMs: 30_000 });
  t.match(loser, { reason: 'Conflict', message: /NodeOverlay clash-b has the same weight \(5\)/ });
  t.match((await conditionsOf('clash-a'))?.find((c) => c.type === 'Ready'), { status: 'False' });
});
