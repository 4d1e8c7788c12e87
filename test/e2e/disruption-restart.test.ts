import type * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { applyDisruptionPool, duplicatedClaims, isDisruptedTaint, leakedInstances, listClaims, poolNodes, scenarioPods } from './disruption-support.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

void t.test('nodesmith killed mid-command and restarted leaves no node tainted, leaks no instance and loses no pod', async (t) => {
  const product = await withProduct(t, { childProcess: true });
  const pool = 'restarted';
  const disruption = '    consolidateAfter: Never\n    budgets: [{ nodes: "1" }]';
  await applyDisruptionPool(product, pool, disruption, 'generation: one');
  const onePerNode: k8s.V1Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: pool } } }] } };
  await createDeployment(product, { name: pool, replicas: 2, cpu: '500m', memory: '512Mi', affinity: onePerNode, ...scenarioPods(pool) });
  await waitForRunning(product, pool, 2);
  const original = new Set((await poolNodes(product, pool)).map((n) => n.metadata?.name ?? ''));

  await applyDisruptionPool(product, pool, disruption, 'generation: two');
  // Mid-command: a candidate tainted while its NodeClaim is not yet deleted (its replacement is coming up).
  const caught = await waitFor('a drift command in flight', async () => {
    const claims = await listClaims(product);
    const tainted = (await poolNodes(product, pool)).filter(isDisruptedTaint).map((n) => n.metadata?.name ?? '');
    const inFlight = claims.find((c) => c.nodePool === pool && !c.deleting && tainted.includes(c.nodeName ?? ''));
    return inFlight === undefined ? undefined : inFlight.nodeName;
  }, { timeoutMs: 240_000, intervalMs: 50 });
  await product.crashAndRestart();
  t.pass(`nodesmith was killed with SIGKILL while node ${caught} was tainted and its replacement coming up, and started again`);

  await waitFor('every original node to be replaced', async () => {
    const remaining = (await poolNodes(product, pool)).filter((n) => original.has(n.metadata?.name ?? ''));
    return remaining.length === 0 ? true : undefined;
  }, { timeoutMs: 420_000, intervalMs: 500 });
  const { pods, nodes } = await waitForRunning(product, pool, 2, 240_000);
  t.equal(pods.length, 2, 'every pod is Running again');
  t.ok([...nodes.values()].every((n) => n.metadata?.labels?.['generation'] === 'two'), 'on nodes of the new template');
  const claims = await listClaims(product);
  const stuck = (await product.core.listNode()).items.filter((n) => isDisruptedTaint(n) && claims.some((c) => c.nodeName === n.metadata?.name && !c.deleting));
  t.same(stuck.map((n) => n.metadata?.name), [], 'no node is left tainted karpenter.sh/disrupted without its NodeClaim deleting');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'every running instance belongs to a NodeClaim');
  t.same(await duplicatedClaims(product), [], 'no NodeClaim has two instances');
});
