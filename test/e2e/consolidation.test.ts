import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import type { ConsolidationDryRun } from '../../provisioner/disruption/consolidation-dry-run.js';
import type { ConsolidationReport } from '../../provisioner/disruption/consolidation-report.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import {
  annotatePod, consolidationPoolYaml, dryRun as dryRunOf, eventsAbout, keepOnePodPerNode, liveClaims, livePods, sampleValue,
} from './consolidation-support.js';
import { availablePods, leakedInstances, listClaims, scaleDeployment, scenarioPods } from './disruption-support.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

const product = await withProduct(t, { consolidation: { spotToSpot: false } });
const apps = product.kc.makeApiClient(k8s.AppsV1Api);
const policy = product.kc.makeApiClient(k8s.PolicyV1Api);
const minutes = (n: number): number => n * 60_000;

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

const decisions = 'nodesmith_voluntary_disruption_decisions_total';
const eligible = 'nodesmith_voluntary_disruption_eligible_nodes';

const dryRun = (): Promise<ConsolidationDryRun> => dryRunOf(product);

void t.test('multi-node: underutilised nodes are merged by deletes onto as few as hold their pods, held while a PDB allows no eviction, never below it after', async (t) => {
  const app = 'merge';
  await product.apply(consolidationPoolYaml(product, app, { types: ['c6g.xlarge'], budgetNodes: '100%' }));
  await createDeployment(product, { name: app, replicas: 9, cpu: '1', memory: '1Gi', ...scenarioPods(app) });
  await waitForRunning(product, app, 9);
  const nodes = await keepOnePodPerNode(product, app);
  t.ok(nodes.length >= 3, `9 pods of 1 CPU need at least 3 c6g.xlarge (got ${String(nodes.length)})`);
  // A burst that arrives in several batches under load may take a fourth node; three 1-CPU pods is all a c6g.xlarge
  // holds beside its DaemonSets, so that is how few nodes the survivors can be merged onto.
  const fewest = Math.ceil(nodes.length / 3);
  await scaleDeployment(product, app, nodes.length);
  const { pods } = await waitForRunning(product, app, nodes.length);
  t.same(new Set(pods.map((p) => p.spec?.nodeName)), new Set(nodes), 'one pod left on each node: underutilised, none empty');
  const before = await liveClaims(product, app);

  await policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: app }, spec: { minAvailable: nodes.length, selector: { matchLabels: { app } } } } });
  const blocked = await waitFor('a DisruptionBlocked Event naming the PDB', async () => {
    const events = await eventsAbout(product, 'DisruptionBlocked', before.claims);
    return events.find((e) => (e.message ?? '').includes(`PDB default/${app} allows 0 evictions`));
  }, { timeoutMs: minutes(3), intervalMs: 1000 });
  t.comment(`event: ${blocked.message ?? ''}`);
  t.same((await liveClaims(product, app)).claims.sort(), [...before.claims].sort(), 'every node stays while the PDB allows no eviction');

  await policy.patchNamespacedPodDisruptionBudget({ name: app, namespace: 'default', body: { spec: { minAvailable: nodes.length - 1 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  let fewestAvailable = Number.POSITIVE_INFINITY;
  let mostEligible = 0;
  const started = Date.now();
  await waitFor(`the pool to be down to ${String(fewest)} node(s)`, async () => {
    fewestAvailable = Math.min(fewestAvailable, await availablePods(product, app));
    mostEligible = Math.max(mostEligible, sampleValue(await metrics(), eligible, { reason: 'underutilized' }));
    const { claims } = await liveClaims(product, app);
    const all = (await listClaims(product)).filter((c) => c.nodePool === app);
    return claims.length === fewest && all.length === fewest ? true : undefined;
  }, { timeoutMs: minutes(5), intervalMs: 500 });
  t.comment(`figure: ${String(nodes.length)} nodes consolidated to ${String(fewest)} in ${((Date.now() - started) / 1000).toFixed(1)} s after the PDB allowed it (consolidateAfter 15 s, validation 15 s)`);

  const after = await waitForRunning(product, app, nodes.length);
  t.equal(new Set(after.pods.map((p) => p.spec?.nodeName)).size, fewest, `every pod is Running again, on the ${String(fewest)} node(s) left`);
  t.ok(fewestAvailable >= nodes.length - 1, `the PDB (minAvailable ${String(nodes.length - 1)}) held at every sample: fewest available ${String(fewestAvailable)}`);
  t.ok(mostEligible >= 1, `eligible_nodes{reason="underutilized"} showed the candidates (${String(mostEligible)})`);
  const text = await metrics();
  t.comment(text.split('\n').filter((l) => l.startsWith(decisions)).join('\n'));
  t.ok(sampleValue(text, decisions, { decision: 'delete', reason: 'underutilized', consolidation_type: 'multi' }) >= 1, 'a multi-node delete decision was counted');
  t.equal(sampleValue(text, decisions, { decision: 'replace', reason: 'underutilized', consolidation_type: 'multi' }), 0, 'no fourth c6g.xlarge was launched to replace three');
  const terminating = await eventsAbout(product, 'DisruptionTerminating', before.claims);
  t.ok(terminating.some((e) => /delete .* pods? fits? on other nodes/.test(e.message ?? '')), 'the deleted nodeclaims carry the command\'s explanation');

  const kept = new Set((await liveClaims(product, app)).claims);
  const gone = before.claims.filter((c) => !kept.has(c));
  await waitFor('the instances of the deleted nodeclaims to be terminated', async () => {
    const live = (await listInstances(product)).filter((i) => gone.includes(i.tags['karpenter.sh/nodeclaim'] ?? '') && i.state !== 'terminated');
    return live.length === 0 ? true : undefined;
  }, { timeoutMs: minutes(2), intervalMs: 1000 });
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
  await apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
  await policy.deleteNamespacedPodDisruptionBudget({ name: app, namespace: 'default' });
  // The next scenario's dry run would rightly pair its node with this empty one in a multi-node batch: let emptiness take it first.
  await waitFor('the emptied pool to have no node left', async () => ((await listClaims(product)).some((c) => c.nodePool === app) ? undefined : true), { timeoutMs: minutes(3), intervalMs: 1000 });
});

/** Waits for a DisruptionBlocked Event on the nodeclaim whose message contains the text; returns the message. */
async function blockedEvent(claim: string, containing: string): Promise<string> {
  const event = await waitFor(`a DisruptionBlocked Event on ${claim} containing "${containing}"`, async () => {
    const events = await eventsAbout(product, 'DisruptionBlocked', [claim]);
    return events.find((e) => (e.message ?? '').includes(containing));
  }, { timeoutMs: minutes(3), intervalMs: 1000 });
  return event.message ?? '';
}

/** The dry run, run now against the cluster, gives the node the reason the controller's Event gave. */
async function expectDryRunAgrees(t: Test, nodeName: string, eventMessage: string): Promise<void> {
  const report = await dryRun();
  const reason = report.nodes.find((n) => n.name === nodeName)?.reason ?? '(none)';
  t.ok(eventMessage.endsWith(reason), `the dry run gives the controller's reason: ${reason}`);
  t.same(report.commands.filter((c) => c.nodes.includes(nodeName)), [], 'and no command for the node');
  const leader = await fetch(`${product.nodesmith?.healthUrl ?? ''}/debug/consolidation`);
  t.equal(leader.status, 200, 'the running controller answers GET /debug/consolidation');
  const live = await leader.json() as ConsolidationReport;
  t.equal(live.leader, true);
  t.ok(eventMessage.endsWith(live.now.nodes.find((n) => n.name === nodeName)?.reason ?? '(none)'), 'with the same reason');
  t.ok(live.lastPasses.some((p) => p.method === 'single-node' && (p.simulations > 0 || p.skipped !== null)), 'and its own last passes');
}

async function expectReplacedByLarge(t: Test, app: string, old: { claim: string; node: string }): Promise<void> {
  const after = await waitForRunning(product, app, 1);
  const [replacement] = [...after.nodes.values()];
  t.equal(replacement?.metadata?.labels?.[wellKnown.instanceType], 'c6g.large', 'the pod is Running again on a c6g.large');
  t.not(replacement?.metadata?.name, old.node, 'a new node');
  t.ok(sampleValue(await metrics(), decisions, { decision: 'replace', reason: 'underutilized', consolidation_type: 'single' }) >= 1, 'a single-node replace decision was counted');
  t.ok((await eventsAbout(product, 'DisruptionLaunching', [old.claim])).length >= 1, 'the replaced nodeclaim has a DisruptionLaunching Event');
  t.same((await livePods(product, app)).map((p) => p.status?.phase), ['Running'], 'no pod lost');
  t.same((await leakedInstances(product)).map((i) => i.id), [], 'no instance without a NodeClaim');
}

void t.test('single-node: do-not-disrupt holds the node, then the minimum saving does (the dry run says why too), then it is replaced by a cheaper type', async (t) => {
  const app = 'shrink';
  const types = ['c6g.large', 'c6g.xlarge'];
  await product.apply(consolidationPoolYaml(product, app, { types, minSavings: '60%' }));
  await createDeployment(product, { name: app, replicas: 3, cpu: '1', memory: '1Gi', annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, ...scenarioPods(app) });
  const first = await waitForRunning(product, app, 3);
  const [node] = [...first.nodes.values()];
  t.equal(first.nodes.size, 1, 'three pods of 1 CPU share one node');
  t.equal(node?.metadata?.labels?.[wellKnown.instanceType], 'c6g.xlarge', 'a c6g.xlarge');
  const old = { node: node?.metadata?.name ?? '', claim: (await liveClaims(product, app)).claims[0] ?? '' };

  await scaleDeployment(product, app, 1);
  const podName = (await waitForRunning(product, app, 1)).pods[0]?.metadata?.name ?? '';
  // While the three pods ran, a pass may already have named one that the scale-down then removed: wait for the
  // Event about the pod that is left, and check its whole wording.
  t.match(await blockedEvent(old.claim, `pod default/${podName} has`), `cannot disrupt: pod default/${podName} has karpenter.sh/do-not-disrupt`, 'the Event names the do-not-disrupt pod');

  await annotatePod(product, podName, { 'karpenter.sh/do-not-disrupt': null });
  const belowMinimum = await blockedEvent(old.claim, 'below the minimum saving 60%');
  t.match(belowMinimum, /single-node consolidation: best replacement c6g\.large at \$0\.\d{4}\/h saves \$0\.\d{4}\/h \(50\.0%\) of \$0\.\d{4}\/h, below the minimum saving 60%/, 'the Event gives the saving and the minimum in numbers');
  await expectDryRunAgrees(t, old.node, belowMinimum);
  t.same((await liveClaims(product, app)).claims, [old.claim], 'the node stays');

  await product.apply(consolidationPoolYaml(product, app, { types, minSavings: '10%' }));
  await waitFor('the c6g.xlarge to be replaced', async () => {
    const all = (await listClaims(product)).filter((c) => c.nodePool === app);
    return all.length === 1 && all[0]?.name !== old.claim ? true : undefined;
  }, { timeoutMs: minutes(5), intervalMs: 500 });
  await expectReplacedByLarge(t, app, old);
  await apps.deleteNamespacedDeployment({ name: app, namespace: 'default' });
});
