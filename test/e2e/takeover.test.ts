import t from 'tap';
import { startKarpenterWorld } from '../stack/karpenter-stack.js';
import { waitFor } from '../stack/wait-for.js';
import { passesFromNow } from './controller-passes.js';
import { clusterName, nodePoolYaml, startProductOn, type ProductStack } from './product-stack.js';
import { applyKarpenterWorkload, losses, lossesDuring, lossesUntil, moreThanTheNodesHold, nodeClaims, notRunning, scale, snapshot, type ClusterSnapshot } from './takeover-support.js';

// docs/migration.md on the real stack, with the real Karpenter (v1.15.0) and Karpenter's own example workloads:
// Karpenter launches, is killed, nodesmith takes over and loses nothing, then consolidates what the workloads no
// longer need; then back from nodesmith to Karpenter, again losing nothing. One stack, in order: each step starts
// from the cluster the previous one left. Slow on a loaded machine: generous timeouts, nothing timed.
t.setTimeout(3_600_000);

const world = await startKarpenterWorld(clusterName);
let product: ProductStack | undefined;
t.teardown(async () => {
  if (!t.passing()) t.comment(`logs (${world.stack.dir}):\n${world.logTails()}${product === undefined ? '' : `\n${product.logTails()}`}`);
  await product?.stop();
  await world.stop();
});

// Karpenter's getting-started NodePool, on demand: both controllers price on-demand from their own built-in tables
// (moto's spot price is one placeholder for every type). `held` is the move as docs/migration.md tells it: a budget
// that holds consolidation until the takeover is checked. Without it nodesmith may consolidate Karpenter's nodes at
// once, rightly (its plan can be cheaper), and a disruption for cost would hide one caused by the move.
// `allAtOnce`, once nodesmith's takeover is checked: under the default budget (10%: one of Karpenter's 3 to 5 nodes
// at a time) nodesmith removed the emptied nodes one 15 s validation after another, up to 90 s. How many go at once
// is for the budget tests (disruption*.test.ts); this one checks that they go, with their instances and Nodes.
const budgets = { held: '[{ nodes: "0", reasons: [Underutilized] }]', allAtOnce: '[{ nodes: "100%" }]' } as const;
const poolYaml = (budget?: keyof typeof budgets): string => nodePoolYaml('default', world.vpc, {
  extraRequirements: `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }
        - { key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"] }`,
  extraSpec: budget === undefined ? '' : `  disruption:\n    budgets: ${budgets[budget]}`,
});

/**
 * Every pod Running and the cluster unchanged for 20 s, looked at every 5 s: the controller has nothing left to do.
 * (Two looks 20 s apart, as before, but the 20 s start from the first look that found it so, not from a 20 s tick.)
 */
async function settled(what: string, timeoutMs = 900_000): Promise<ClusterSnapshot> {
  let since: { readonly at: number; readonly look: ClusterSnapshot } | undefined;
  return waitFor(what, async () => {
    const now = await snapshot(world);
    const same = since !== undefined && losses(since.look, now).length === 0 && losses(now, since.look).length === 0;
    if (!same || (await notRunning(world)) !== 0 || now.disrupted.length > 0) {
      since = { at: Date.now(), look: now };
      return undefined;
    }
    return Date.now() - (since?.at ?? Date.now()) >= 20_000 ? now : undefined;
  }, { timeoutMs, intervalMs: 5_000 });
}

// Every nodesmith controller that could delete, disrupt or collect one of Karpenter's objects runs at a 3 s period,
// and the watch after the takeover lasts until each has made its passes, counted on nodesmith's /metrics, rather than
// minutes sized on the default periods. Those 90 s held 9 passes of disruption and of the orphan-instance GC (10 s
// while young), 3 drift rechecks (30 s) and at most one pass of the lost-NodeClaim GC (2 min); the watch now holds
// 10 of each (3 drift rechecks at 10 s), about 30 s: no weaker.
const actingEvery = { 'gc.instances': 3_000, 'gc.nodeclaims': 3_000, disruption: 3_000, 'nodeclaim.consolidatable': 3_000, 'nodeclaim.expiration': 3_000, 'nodeclaim.liveness': 3_000 };
const passesWatched = { ...Object.fromEntries(Object.keys(actingEvery).map((name) => [name, 10])), 'nodeclaim.disruption.drift': 3 };
const driftRecheckMs = 10_000;

const metric = async (name: string): Promise<number> => {
  const text = await (await fetch(`${product?.healthUrl ?? ''}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(name)).reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
};

let workloads = { inflate: '', spread: '' };
let karpenterClaims = new Set<string>();

await t.test('Karpenter to nodesmith: no pod evicted, no Node, NodeClaim or instance lost; then nodesmith consolidates Karpenter\'s nodes', async (t) => {
  // Karpenter launches a node in each zone for zone-spread, but they register seconds apart, and kube-scheduler
  // counts only zones that have nodes: it put all three pods on the first node up, the other two went empty and
  // Karpenter removed them (one NodeClaim where this test needs three to consolidate). minDomains 3 makes it wait for
  // three zones; both workloads also wait for Karpenter's first batch.
  await world.apply(poolYaml('held'));
  const inflate = await applyKarpenterWorkload(world, 'inflate.yaml', 4);
  const spread = await applyKarpenterWorkload(world, 'spread-zone.yaml', 0);
  const patched = await world.stack.kubectl(['-n', 'default', 'patch', 'deployment', spread, '--type=json', '-p', '[{"op":"add","path":"/spec/template/spec/topologySpreadConstraints/0/minDomains","value":3}]']);
  if (patched.code !== 0) throw new Error(`patching ${spread} failed: ${patched.stderr}`);
  await scale(world, spread, 3);
  workloads = { inflate, spread };
  const karpenter = await world.startKarpenter();
  await settled('Karpenter to run every pod of inflate and zone-spread');
  // Killed, not stopped: its Lease stays held until it expires, as after a crashed pod.
  await karpenter.kill();
  const before = await snapshot(world);
  karpenterClaims = new Set(before.claims.keys());
  t.ok(before.claims.size >= 3, `Karpenter launched a node in each of the 3 zones at least (${String(before.claims.size)})`);
  t.equal(before.pods.size, 7, 'all 7 pods run on Karpenter\'s nodes');

  product = await startProductOn(world, { consolidation: { spotToSpot: false }, driftRecheckMs, controllerPeriods: actingEvery });
  // The drift pass re-stamps every adopted NodeClaim with nodesmith's hashes: nodesmith is acting on them.
  await waitFor('nodesmith to re-stamp the drift hashes of Karpenter\'s NodeClaims', async () => {
    const claims = await nodeClaims(world);
    return claims.every((c) => c.metadata.annotations?.['karpenter.sh/nodepool-hash-version'] === 'nodesmith-v3') ? true : undefined;
  }, { timeoutMs: 600_000, intervalMs: 5_000 });
  const passes = await passesFromNow(product.healthUrl, passesWatched);
  let made: Record<string, number> = {};
  const lost = await lossesUntil(world, before, async () => { const now = await passes(); made = now.made; return now.done; }, 600_000);
  t.same(lost, [], `over ${JSON.stringify(made)} passes of nodesmith's controllers after it acts, nothing of Karpenter's is lost, evicted, deleted or drifted`);
  t.equal(await metric('nodesmith_garbage_collected_total'), 0, 'nodesmith garbage-collected nothing');
  t.equal(await metric('nodesmith_garbage_collection_skipped_total'), 0, 'and had no doubt about any object it kept');
  await world.apply(poolYaml('allAtOnce'));

  await scale(world, workloads.inflate, 0);
  await scale(world, workloads.spread, 1);
  const after = await waitFor('nodesmith to remove the nodes the workloads no longer need', async () => {
    const now = await snapshot(world);
    return now.claims.size === 1 && now.disrupted.length === 0 && (await notRunning(world)) === 0 ? now : undefined;
  }, { timeoutMs: 900_000, intervalMs: 5_000 });
  const removed = [...before.claims].filter(([name]) => !after.claims.has(name));
  t.ok(removed.length >= 2, `nodesmith removed ${String(removed.length)} of Karpenter's NodeClaims`);
  t.same(removed.map(([, id]) => after.instances.get(id.split('/').at(-1) ?? '')).filter((s) => s !== 'terminated'), [], 'and terminated their instances');
  t.equal(after.pods.size, 1, 'the one zone-spread pod left runs');
  // Karpenter's registration puts its termination finalizer on every Node it registers; deleting the Node is not
  // enough, the finalizer must go too or the Node stays Terminating until Karpenter comes back.
  const leftovers = await waitFor('the Nodes of the removed NodeClaims to go', async () => {
    const now = await snapshot(world);
    return now.nodes.size === now.claims.size ? [] : undefined;
  }, { timeoutMs: 180_000, intervalMs: 5_000 }).catch(async () => [...(await snapshot(world)).nodes]);
  t.same(leftovers, [], 'no Node of a removed NodeClaim is left behind');
  // Back to the getting-started pool's default budget, which the way back starts from.
  await world.apply(poolYaml());
});

await t.test('nodesmith back to Karpenter: Karpenter adopts nodesmith\'s nodes and loses nothing', async (t) => {
  const running = product;
  if (running === undefined) throw new Error('the first test did not start nodesmith');
  await scale(world, workloads.inflate, await moreThanTheNodesHold(world, 6));
  const before = await settled('nodesmith to run the scaled-up inflate');
  const launched = [...before.claims.keys()].filter((name) => !karpenterClaims.has(name));
  t.ok(launched.length >= 1, `nodesmith launched ${String(launched.length)} NodeClaim(s) for inflate`);

  // docs/migration.md, "Back from nodesmith to Karpenter": stop nodesmith, remove what only it uses, start Karpenter.
  // As the way in: hold consolidation until the handback is checked. nodesmith leaves replacements that save under
  // 15% (its default) which Karpenter, replacing for any saving, takes at once: a cost move, not a loss of the handback.
  await world.apply(poolYaml('held'));
  await running.stop();
  product = undefined;
  await world.stack.kubectl(['delete', 'nodes', '-l', 'nodesmith.io/launchable']);
  await world.stack.startScheduler([]);
  await world.stack.kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', 'nodesmith']);
  const handedOver = await snapshot(world);
  t.same(losses(before, handedOver), [], 'stopping nodesmith lost nothing');

  const karpenter = await world.startKarpenter();
  t.teardown(() => karpenter.stop());
  t.same(await lossesDuring(world, handedOver, 120_000), [], 'for 2 minutes after Karpenter starts, nothing of nodesmith\'s is lost, evicted, deleted or drifted');
  await world.apply(poolYaml());
  await scale(world, workloads.spread, 2);
  await waitFor('Karpenter to run a new zone-spread pod on the adopted cluster', async () => ((await notRunning(world)) === 0 ? true : undefined), { timeoutMs: 600_000, intervalMs: 5_000 });
  t.pass('Karpenter provisions on the cluster it took back');
});
