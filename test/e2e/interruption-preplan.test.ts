// Its own stack: after the other interruption scenarios in one process, the replacement was not launched within
// 60 s in two runs on main (issue 28's notes); alone it is launched in about 10 s. Kept apart until that is found.
import * as k8s from '@kubernetes/client-node';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import t from 'tap';
import { spotInterruption } from '../fixtures/interruption/eventbridge-events.js';
import { waitFor } from '../stack/wait-for.js';
import { listClaims, scenarioPods } from './disruption-support.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';
import { applyScenarioPool } from './scenario-pools.js';

const queueName = 'nodesmith-interruptions';
const product = await withProduct(t, { interruptionQueue: queueName });
const sqs = new SQSClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
t.teardown(() => { sqs.destroy(); });
const { QueueUrl: queueUrl = '' } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
const send = async (body: string): Promise<void> => { await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body })); };

await t.test("an interrupted node's pods get their new node before they are evicted", async (t) => {
  await applyScenarioPool(product, 'preplan');
  const policy = product.kc.makeApiClient(k8s.PolicyV1Api);
  // minAvailable 1 of 1: every eviction is refused, so the old pod stays put until the test removes the PDB.
  await policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: 'preplan' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'preplan' } } } } });
  await createDeployment(product, { name: 'preplan', replicas: 1, cpu: '250m', memory: '256Mi', ...scenarioPods('preplan') });
  const before = await waitForRunning(product, 'preplan', 1, 240_000);
  const [oldNode = ''] = before.nodes.keys();
  const oldPod = before.pods[0]?.metadata?.name ?? '';
  const oldClaim = (await listClaims(product)).find((c) => c.nodeName === oldNode)?.name;

  const sentAt = Date.now();
  await send(spotInterruption(oldNode));
  const replacement = await waitFor('a new NodeClaim of the pool launched', async () => {
    const fresh = (await listClaims(product)).find((c) => c.nodePool === 'preplan' && c.name !== oldClaim && c.nodeName !== undefined);
    return fresh;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const launchedMs = Date.now() - sentAt;
  const stillThere = await product.core.readNamespacedPod({ namespace: 'default', name: oldPod });
  t.equal(stillThere.spec?.nodeName, oldNode, 'the replacement launched while the old pod still runs on the interrupted node');
  t.equal(stillThere.metadata?.deletionTimestamp, undefined, 'and has not been evicted (its PDB refuses)');
  t.comment(`replacement NodeClaim launched ${String(launchedMs)} ms after the message, before any eviction`);

  await policy.deleteNamespacedPodDisruptionBudget({ namespace: 'default', name: 'preplan' });
  const after = await waitFor('the pod running again off the interrupted node', async () => {
    const running = await waitForRunning(product, 'preplan', 1, 5_000).catch(() => undefined);
    return running !== undefined && !running.nodes.has(oldNode) ? running : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 });
  t.comment(`pod Running on the pre-launched node ${String(Date.now() - sentAt)} ms after the message (eviction allowed once the PDB went)`);
  t.ok(after.nodes.has(replacement.nodeName ?? ''), `the evicted pod's successor runs on the node launched for it in advance (${replacement.nodeName ?? ''})`);
  const live = (await listClaims(product)).filter((c) => c.nodePool === 'preplan' && !c.deleting);
  t.same(live.map((c) => c.name), [replacement.name], 'and no second node was launched for it');
});

