import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import {
  applyDisruptionPool, availablePods, isDisruptedTaint, leakedInstances, listClaims, poolNodes, scaleDeployment, scenarioPods,
} from './disruption-support.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

// Disruption and the Consolidatable writer every 2 s instead of 10: the scenarios poll for what they do. The held
// pools' watch below is sized on the 15 s validation delay (a fixed time, as Karpenter's), not on a period, and stays.
const product = await withProduct(t, { controllerPeriods: { disruption: 2_000, 'nodeclaim.consolidatable': 2_000 } });

async function claimsOf(pool: string): Promise<string[]> {
  return (await listClaims(product)).filter((c) => c.nodePool === pool).map((c) => c.name);
}

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

void t.test('emptiness: scaled to 0, nodes go after consolidateAfter; Never keeps them; a closed budget window lets them go, an open one with nodes "0" holds them', async (t) => {
  const minute = new Date().getUTCMinutes();
  // A window that opened 30 minutes ago for 10 minutes (closed now, for the next half hour) and one that is always open.
  const closed = `    budgets: [{ nodes: "0", schedule: "${String((minute + 30) % 60)} * * * *", duration: 10m }]`;
  const open = '    budgets: [{ nodes: "0", schedule: "0 * * * *", duration: 1h }]';
  const pools: [string, string][] = [
    ['emptied', '    consolidateAfter: 15s'],
    ['never', '    consolidateAfter: Never'],
    ['closedwindow', `    consolidateAfter: 15s\n${closed}`],
    ['openwindow', `    consolidateAfter: 15s\n${open}`],
  ];
  for (const [name, disruption] of pools) {
    await applyDisruptionPool(product, name, disruption);
    await createDeployment(product, { name, replicas: 2, cpu: '1', memory: '1Gi', ...scenarioPods(name) });
  }
  for (const [name] of pools) await waitForRunning(product, name, 2);
  const before = new Map<string, string[]>();
  for (const [name] of pools) before.set(name, await claimsOf(name));
  t.ok([...before.values()].every((claims) => claims.length > 0), 'every pool launched nodes');

  const drifted = (await listClaims(product)).filter((c) => c.conditions.some((x) => x.type === 'Drifted'));
  t.same(drifted.map((c) => `${c.name}: ${JSON.stringify(c.conditions.find((x) => x.type === 'Drifted'))}`), [], 'no nodeclaim is drifted: emptiness, not drift, removes these nodes');
  const scaledAt = Date.now();
  for (const [name] of pools) await scaleDeployment(product, name, 0);
  const seen = new Set<string>();
  await waitFor('the empty nodes of "emptied" and "closedwindow" to be gone', async () => {
    const claims = await listClaims(product);
    for (const c of claims) for (const x of c.conditions) if (x.type === 'Drifted' || x.type === 'Consolidatable' || x.type === 'DisruptionReason') seen.add(`${c.nodePool}/${c.name} ${x.type}=${x.status} ${x.reason ?? ''}`);
    const left = claims.filter((c) => c.nodePool === 'emptied' || c.nodePool === 'closedwindow');
    return left.length === 0 ? true : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  t.comment(`conditions seen: ${[...seen].join('; ')}`);
  const seconds = (Date.now() - scaledAt) / 1000;
  t.ok(seconds >= 15, `deleted ${seconds.toFixed(1)} s after the scale-down, not before consolidateAfter (15 s)`);
  t.comment(`figure: empty nodes deleted ${seconds.toFixed(1)} s after the scale-down (consolidateAfter 15s + 15 s validation)`);

  const gone = [...(before.get('emptied') ?? []), ...(before.get('closedwindow') ?? [])];
  await waitFor('their instances to be terminated in moto', async () => {
    const live = (await listInstances(product)).filter((i) => gone.includes(i.tags['karpenter.sh/nodeclaim'] ?? '') && i.state !== 'terminated');
    return live.length === 0 ? true : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  t.pass('every instance of the deleted nodeclaims is terminated');

  // Give the held pools 20 s more: longer than the 15 s validation a delete waits, and 10 passes of disruption and of
  // the Consolidatable writer (2 s): a controller that would delete them has had every chance.
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  t.same(await claimsOf('never'), before.get('never'), 'consolidateAfter Never: the empty nodes stay');
  t.same(await claimsOf('openwindow'), before.get('openwindow'), 'a budget of nodes "0" inside its window: the empty nodes stay');
  t.ok((await poolNodes(product, 'openwindow')).every((n) => !isDisruptedTaint(n)), 'and they are not left tainted');
  const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=DisruptionBlocked' })).items;
  t.ok(events.some((e) => (before.get('openwindow') ?? []).includes(e.involvedObject.name ?? '') && (e.message ?? '').includes('budget 0 (schedule "0 * * * *" for 1h)')),
    'the held nodeclaim has an Event naming the budget');
  const text = await metrics();
  t.match(text, /nodesmith_voluntary_disruption_decisions_total\{decision="delete",reason="empty",consolidation_type="empty"\} [1-9]/);
  t.match(text, /nodesmith_nodepools_allowed_disruptions\{nodepool="openwindow",reason="empty"\} 0/);
  t.match(text, /nodesmith_nodeclaims_disrupted_total\{nodepool="emptied",reason="empty",capacity_type="[^"]*",consolidation_policy="[^"]+",termination_mode="graceful"\} [1-9]/);
  for (const [name] of pools) await product.kc.makeApiClient(k8s.AppsV1Api).deleteNamespacedDeployment({ name, namespace: 'default' });
});

void t.test('drift: a NodePool template label change replaces every node one at a time under a budget of 1, never below the PDB', async (t) => {
  const pool = 'drifting';
  await applyDisruptionPool(product, pool, '    consolidateAfter: Never\n    budgets: [{ nodes: "1" }]', 'generation: one');
  const onePerNode: k8s.V1Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: pool } } }] } };
  await createDeployment(product, { name: pool, replicas: 3, cpu: '500m', memory: '512Mi', affinity: onePerNode, ...scenarioPods(pool) });
  await product.kc.makeApiClient(k8s.PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: pool }, spec: { minAvailable: 2, selector: { matchLabels: { app: pool } } } } });
  await waitForRunning(product, pool, 3);
  const original = new Set((await poolNodes(product, pool)).map((n) => n.metadata?.name ?? ''));
  t.equal(original.size, 3, 'one node per pod');

  await applyDisruptionPool(product, pool, '    consolidateAfter: Never\n    budgets: [{ nodes: "1" }]', 'generation: two');
  let minAvailable = Number.POSITIVE_INFINITY;
  let maxDisruptedAtOnce = 0;
  const started = Date.now();
  await waitFor('every original node to be replaced', async () => {
    minAvailable = Math.min(minAvailable, await availablePods(product, pool));
    const nodes = await poolNodes(product, pool);
    const claims = (await listClaims(product)).filter((c) => c.nodePool === pool);
    // As the budget counts (Karpenter's rule): a node whose instance is already terminating no longer uses it up.
    const gone = new Set(claims.filter((c) => c.conditions.some((x) => x.type === 'InstanceTerminating' && x.status === 'True')).map((c) => c.nodeName ?? ''));
    const disrupted = new Set([...nodes.filter(isDisruptedTaint).map((n) => n.metadata?.name ?? ''), ...claims.filter((c) => c.deleting).map((c) => c.nodeName ?? '')].filter((name) => !gone.has(name)));
    maxDisruptedAtOnce = Math.max(maxDisruptedAtOnce, disrupted.size);
    const remaining = nodes.filter((n) => original.has(n.metadata?.name ?? ''));
    return remaining.length === 0 ? true : undefined;
  }, { timeoutMs: 420_000, intervalMs: 250 });
  t.comment(`figure: 3 drifted nodes replaced in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.ok(minAvailable >= 2, `the PDB (minAvailable 2) held at every sample: fewest available ${String(minAvailable)}`);
  t.equal(maxDisruptedAtOnce, 1, 'never more than one node disrupted at once (budget 1)');
  const { nodes } = await waitForRunning(product, pool, 3);
  t.ok([...nodes.values()].every((n) => n.metadata?.labels?.['generation'] === 'two'), 'every pod runs on a node of the new template');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
  t.match(await metrics(), /nodesmith_voluntary_disruption_decisions_total\{decision="replace",reason="drifted",consolidation_type=""\} [1-9]/);
});
