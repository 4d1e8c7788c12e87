import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import type { ConsolidationDryRun, DryRunCommand } from '../../provisioner/disruption/consolidation-dry-run.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { consolidationPoolYaml, dryRun as dryRunOf, eventsAbout, liveClaims, livePods, sampleValue } from './consolidation-support.js';
import { leakedInstances, listClaims, scaleDeployment, scenarioPods } from './disruption-support.js';
import { createDeployment, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';

// The consolidation scenarios beside consolidation.test.ts: the WhenEmpty policy, spot pinning of a replacement, and
// the recreated pods of a consolidation landing where its simulation put them.
// Disruption and the Consolidatable writer every 2 s instead of 10: the scenarios poll for what consolidation does,
// and a change that wakes neither (a pod's deletion cost, a pool's wider requirements) is then seen sooner.
const product = await withProduct(t, { consolidation: { spotToSpot: false }, controllerPeriods: { disruption: 2_000, 'nodeclaim.consolidatable': 2_000 } });
const apps = product.kc.makeApiClient(k8s.AppsV1Api);
const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);
const minutes = (n: number): number => n * 60_000;
const decisions = 'nodesmith_voluntary_disruption_decisions_total';

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

const dryRun = (): Promise<ConsolidationDryRun> => dryRunOf(product);

/**
 * Removes the scenario's Deployment, then its pool's NodeClaims, and waits until every one is gone (so the next
 * scenario's dry run does not pair its nodes with these). The NodeClaims are deleted rather than left to emptiness:
 * a consolidation's destination stays nominated for a minute (planned-placement.ts `nominationMs`), which held the
 * emptied pool here for some 75 s; emptiness itself is what the WhenEmpty scenario checks. Its pods go first, so the
 * drain evicts none that a ReplicaSet would recreate.
 */
async function poolEmptied(app: string): Promise<void> {
  await apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
  await waitFor(`the ${app} pods to be gone`, async () => ((await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items.length === 0 ? true : undefined), { timeoutMs: minutes(2), intervalMs: 500 });
  for (const claim of (await listClaims(product)).filter((c) => c.nodePool === app)) {
    // Gone already (emptiness got there first) is as good.
    await custom.deleteClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: claim.name })
      .catch((e: unknown): void => { if (!(e instanceof k8s.ApiException && e.code === 404)) throw e; });
  }
  await waitFor(`the ${app} pool to have no node left`, async () => ((await listClaims(product)).some((c) => c.nodePool === app) ? undefined : true), { timeoutMs: minutes(3), intervalMs: 1000 });
}

void t.test('WhenEmpty: an underutilised node stays (the Event and the dry run say why), and goes once it is empty', async (t) => {
  const app = 'whenempty';
  await product.apply(consolidationPoolYaml(product, app, { types: ['c6g.large', 'c6g.xlarge'], policy: 'WhenEmpty' }));
  await createDeployment(product, { name: app, replicas: 3, cpu: '1', memory: '1Gi', ...scenarioPods(app) });
  const first = await waitForRunning(product, app, 3);
  const [node] = [...first.nodes.values()];
  t.equal(node?.metadata?.labels?.[wellKnown.instanceType], 'c6g.xlarge', 'three pods of 1 CPU share one c6g.xlarge');
  const claim = (await liveClaims(product, app)).claims[0] ?? '';
  const nodeName = node?.metadata?.name ?? '';

  await scaleDeployment(product, app, 1);
  await waitForRunning(product, app, 1);
  const blocked = await waitFor('a DisruptionBlocked Event naming the WhenEmpty policy', async () => {
    const events = await eventsAbout(product, 'DisruptionBlocked', [claim]);
    return events.find((e) => (e.message ?? '').includes('consolidationPolicy WhenEmpty'));
  }, { timeoutMs: minutes(3), intervalMs: 1000 });
  t.match(blocked.message ?? '', `NodePool ${app} has consolidationPolicy WhenEmpty and the node has 1 pods to move`, 'the Event gives the policy and the pod count');
  const report = await dryRun();
  t.equal(report.nodes.find((n) => n.name === nodeName)?.reason, `NodePool ${app} has consolidationPolicy WhenEmpty and the node has 1 pods to move`, 'the dry run gives the same reason');
  t.same(report.commands.filter((c) => c.nodes.includes(nodeName)), [], 'and no command for the node, though a c6g.large would be cheaper');
  t.same((await liveClaims(product, app)).claims, [claim], 'the c6g.xlarge stays');
  t.equal(sampleValue(await metrics(), decisions, { decision: 'replace', reason: 'underutilized', consolidation_type: 'single' }), 0, 'no replace decision was taken');

  await scaleDeployment(product, app, 0);
  await waitFor('the emptied node to be removed', async () => ((await listClaims(product)).some((c) => c.nodePool === app) ? undefined : true), { timeoutMs: minutes(3), intervalMs: 1000 });
  t.ok(sampleValue(await metrics(), decisions, { decision: 'delete', reason: 'empty' }) >= 1, 'emptiness deleted it');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
  await apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
});

interface ClaimSpec { spec: { requirements: { key: string; operator: string; values?: string[] }[] } }

async function capacityTypesRequired(claim: string): Promise<string[] | undefined> {
  const object = await custom.getClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: claim }) as ClaimSpec;
  return object.spec.requirements.find((r) => r.key === wellKnown.capacityType)?.values;
}

/** Waits for the pool's one NodeClaim to be another than `old`; also returns the dry run's command for the node, if seen first. */
async function replaced(app: string, old: string, nodeName: string): Promise<{ replacement: string; planned: DryRunCommand | undefined }> {
  let planned: DryRunCommand | undefined;
  const replacement = await waitFor(`the ${app} node to be replaced`, async () => {
    planned ??= (await dryRun()).commands.find((c) => c.nodes.includes(nodeName) && c.decision === 'replace');
    const all = (await listClaims(product)).filter((c) => c.nodePool === app);
    return all.length === 1 && all[0]?.name !== old ? all[0]?.name : undefined;
  }, { timeoutMs: minutes(5), intervalMs: 1000 });
  return { replacement, planned };
}

void t.test('spot pinning: an on-demand node whose pool now allows spot is replaced by a node that may only be spot', async (t) => {
  const app = 'pinned';
  const types = ['c6g.large', 'c6g.xlarge'];
  await product.apply(consolidationPoolYaml(product, app, { types }));
  await createDeployment(product, { name: app, replicas: 3, cpu: '1', memory: '1Gi', ...scenarioPods(app) });
  const first = await waitForRunning(product, app, 3);
  const nodeName = [...first.nodes.keys()][0] ?? '';
  t.equal(first.nodes.get(nodeName)?.metadata?.labels?.[wellKnown.capacityType], 'on-demand', 'the pool allowed only on-demand at first');
  const old = (await liveClaims(product, app)).claims[0] ?? '';

  // Widening the requirements does not drift the node (its labels still meet them); it only widens the replacement's options.
  await product.apply(consolidationPoolYaml(product, app, { types, capacityTypes: ['spot', 'on-demand'] }));
  await scaleDeployment(product, app, 1);
  const { replacement, planned } = await replaced(app, old, nodeName);
  if (planned !== undefined) t.match(planned, { replacement: { capacityType: 'spot' } }, `the dry run's replacement was pinned to spot (${planned.explanation})`);
  t.same(await capacityTypesRequired(replacement), ['spot'], 'the replacement NodeClaim requires spot only: an ICE fails its launch rather than landing on dearer on-demand');
  const nowLabels = [...(await waitForRunning(product, app, 1)).nodes.values()].map((n) => n.metadata?.labels ?? {});
  t.same(nowLabels.map((l) => [l[wellKnown.capacityType], l[wellKnown.instanceType]]), [['spot', 'c6g.large']], 'the pod runs on a spot c6g.large, cheaper than the c6g.xlarge');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
  await poolEmptied(app);
});

/**
 * Gives `keep` pods on each node a high pod-deletion-cost, so that scaling the Deployment down removes the others.
 * Returns the node names in the order of `keep`.
 */
async function keepPods(app: string, keep: readonly number[]): Promise<string[]> {
  const byNode = new Map<string, string[]>();
  for (const pod of await livePods(product, app)) {
    const n = pod.spec?.nodeName ?? '';
    byNode.set(n, [...(byNode.get(n) ?? []), pod.metadata?.name ?? '']);
  }
  const nodes = [...byNode.keys()].sort();
  for (const [i, n] of nodes.entries()) {
    for (const name of (byNode.get(n) ?? []).slice(0, keep[i] ?? 0)) {
      await product.core.patchNamespacedPod(
        { name, namespace: 'default', body: { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '1000' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    }
  }
  return nodes;
}

void t.test('placement follows the plan: a moved pod lands on the node the simulation chose, not where kube-scheduler alone would put it', async (t) => {
  const app = 'follow';
  // Pods of 1 CPU and 100Mi on c6g.xlarge (3,920m allocatable): a node with 2 such pods and one with 1 get the same
  // packing score from the extender (both round to 1 of 3), so only the plan tells them apart; kube-scheduler's own
  // LeastAllocated prefers the emptier node, the simulation the fuller one that still fits.
  await product.apply(consolidationPoolYaml(product, app, { types: ['c6g.xlarge'], budgetNodes: '1' }));
  await createDeployment(product, { name: app, replicas: 9, cpu: '1', memory: '100Mi', ...scenarioPods(app) });
  const { nodes: placed } = await waitForRunning(product, app, 9);
  t.equal(placed.size, 3, 'nine pods of 1 CPU fill three c6g.xlarge');
  const [fuller = '', ...others] = await keepPods(app, [2, 1, 1]);
  const before = new Set((await livePods(product, app)).filter((p) => p.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'] !== undefined).map((p) => p.metadata?.name ?? ''));
  await scaleDeployment(product, app, 4);
  const scaled = await waitForRunning(product, app, 4);
  t.same(scaled.pods.map((p) => p.spec?.nodeName).filter((n) => n === fuller).length, 2, `${fuller} keeps two pods, the other two nodes one each`);

  const command = await waitFor('the dry run to move one pod', async () => (await dryRun()).commands.find((c) => c.nodes.some((n) => others.includes(n))), { timeoutMs: minutes(3), intervalMs: 2000 });
  t.same(command.moves.map((m) => m.to), [fuller], `the simulation puts the moved pod on the fuller node (${command.explanation})`);
  await waitFor('one of the single-pod nodes to be removed', async () => ((await liveClaims(product, app)).claims.length === 2 ? true : undefined), { timeoutMs: minutes(5), intervalMs: 1000 });
  // The evicted pod stays phase Running while it terminates: wait for its replacement instead.
  const recreated = await waitFor('the moved pod recreated and Running', async () => {
    const running = (await livePods(product, app)).filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName !== undefined);
    const fresh = running.filter((p) => !before.has(p.metadata?.name ?? ''));
    return running.length === 4 && fresh.length === 1 ? fresh[0] : undefined;
  }, { timeoutMs: minutes(3), intervalMs: 500 });
  t.equal(recreated.spec?.nodeName, fuller, 'kube-scheduler, steered by the extender, bound the recreated pod where the plan said');
  t.equal(sampleValue(await metrics(), 'nodesmith_disruption_unplanned_launches_total', {}), 0, 'no launch that no plan asked for');
  t.same(await overcommittedNodes(product), [], 'no node over its allocatable');
  await poolEmptied(app);
});
