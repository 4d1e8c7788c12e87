import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { applyDisruptionPool, duplicatedClaims, isDisruptedTaint, leakedInstances, listClaims, poolNodes, scenarioPods } from './disruption-support.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';
import type { ProductStack } from './product-stack.js';

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
    return inFlight === undefined ? undefined : { node: inFlight.nodeName, claim: inFlight.name };
  }, { timeoutMs: 240_000, intervalMs: 50 });
  await product.crashAndRestart();
  t.pass(`nodesmith was killed with SIGKILL while node ${caught.node ?? ''} was tainted and its replacement coming up, and started again`);
  // The command recorded its replacement on the candidate before the taint; what the record names must not outlive it idle.
  const recorded = await recordedReplacements(product, caught.claim);
  t.comment(`the abandoned command had recorded replacement(s): ${recorded.join(', ') || '(none yet)'}`);

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
  // consolidateAfter is Never: an idle replacement the abandoned command left would stay for good.
  const settled = await waitFor('the pool to hold exactly one live nodeclaim per pod', async () => {
    const live = (await listClaims(product)).filter((c) => c.nodePool === pool && !c.deleting);
    return live.length === 2 ? live : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  const used = new Set([...nodes.keys()]);
  t.ok(settled.every((c) => used.has(c.nodeName ?? '')), 'both live nodeclaims run a pod: no idle replacement is left behind');
  for (const name of recorded) {
    const still = settled.find((c) => c.name === name);
    t.ok(still === undefined || used.has(still.nodeName ?? ''), `the abandoned command's replacement ${name} was deleted, or kept because a pod runs there`);
  }
});

async function recordedReplacements(product: ProductStack, claimName: string): Promise<string[]> {
  const claim = (await product.kc.makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: claimName })) as { metadata: { annotations?: Record<string, string> } };
  return (claim.metadata.annotations?.['nodesmith.io/disruption-replacements'] ?? '').split(',').filter((s) => s !== '');
}
