import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { applyDisruptionPool, isDisruptedTaint, leakedInstances, listClaims, poolNodes, scenarioPods } from './disruption-support.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

const product = await withProduct(t);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

void t.test('a budget of nodes "0" for Drifted holds drifted nodes with an Event naming it; opened, they are replaced', async (t) => {
  const pool = 'driftbudget';
  const held = '    consolidateAfter: Never\n    budgets: [{ nodes: "0", reasons: [Drifted] }]';
  await applyDisruptionPool(product, pool, held, 'generation: one');
  const onePerNode: k8s.V1Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: pool } } }] } };
  await createDeployment(product, { name: pool, replicas: 2, cpu: '500m', memory: '512Mi', affinity: onePerNode, ...scenarioPods(pool) });
  await waitForRunning(product, pool, 2);
  const original = (await listClaims(product)).filter((c) => c.nodePool === pool);
  const originalNodes = new Set(original.map((c) => c.nodeName ?? ''));
  t.equal(original.length, 2, 'one nodeclaim per pod');

  // The template label change drifts both nodes; the budget names Drifted and allows 0 of them.
  await applyDisruptionPool(product, pool, held, 'generation: two');
  await waitFor('both nodeclaims to be Drifted', async () => {
    const claims = (await listClaims(product)).filter((c) => original.some((o) => o.name === c.name));
    return claims.length === 2 && claims.every((c) => c.conditions.some((x) => x.type === 'Drifted' && x.status === 'True')) ? true : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  const blocked = await waitFor('a DisruptionBlocked Event on each drifted nodeclaim naming the Drifted budget', async () => {
    const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=DisruptionBlocked' })).items
      .filter((e) => original.some((o) => o.name === e.involvedObject.name) && (e.message ?? '').includes('Drifted: budget 0 of 2 nodes allows 0'));
    return new Set(events.map((e) => e.involvedObject.name)).size === 2 ? events : undefined;
  }, { timeoutMs: 60_000, intervalMs: 1000 });
  t.comment(`event: ${blocked[0]?.message ?? ''}`);
  t.pass('each drifted nodeclaim says the Drifted budget holds it');

  // Two more disruption passes (10 s apart): a controller that would replace them has had every chance.
  await sleep(25_000);
  const during = (await listClaims(product)).filter((c) => c.nodePool === pool);
  t.same(during.map((c) => c.name).sort(), original.map((c) => c.name).sort(), 'the drifted nodeclaims stay, and no replacement is launched');
  t.ok(during.every((c) => !c.deleting), 'none is deleting');
  t.ok((await poolNodes(product, pool)).every((n) => !isDisruptedTaint(n)), 'no node is tainted karpenter.sh/disrupted');

  // Opening the budget changes no template field, so nothing new drifts: the two drifted nodes are replaced.
  await applyDisruptionPool(product, pool, '    consolidateAfter: Never\n    budgets: [{ nodes: "1", reasons: [Drifted] }]', 'generation: two');
  const opened = Date.now();
  await waitFor('both drifted nodes to be replaced', async () => {
    const remaining = (await poolNodes(product, pool)).filter((n) => originalNodes.has(n.metadata?.name ?? ''));
    return remaining.length === 0 ? true : undefined;
  }, { timeoutMs: 420_000, intervalMs: 1000 });
  t.comment(`figure: 2 drifted nodes replaced ${((Date.now() - opened) / 1000).toFixed(1)} s after the budget opened`);
  const { nodes } = await waitForRunning(product, pool, 2);
  t.ok([...nodes.values()].every((n) => n.metadata?.labels?.['generation'] === 'two'), 'both pods run on nodes of the new template');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
  await product.kc.makeApiClient(k8s.AppsV1Api).deleteNamespacedDeployment({ name: pool, namespace: 'default' });
});
