import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';

void t.test('nodesmith killed during a launch and restarted leaks no instance, duplicates no node and binds every pod', async (t) => {
  const product = await withProduct(t, { childProcess: true });
  const proxy = product.proxy;
  await product.apply(product.nodePoolYaml('default', '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }'));
  await createDeployment(product, { name: 'crash', replicas: 10, cpu: '1', memory: '1Gi' });

  // Kill at the first CreateFleet on the wire: the launch is in flight and its result may never be recorded.
  await waitFor('the first CreateFleet', () => Promise.resolve(proxy.actions.includes('CreateFleet') ? true : undefined), { timeoutMs: 120_000, intervalMs: 20 });
  await product.crashAndRestart();
  t.pass('nodesmith was killed with SIGKILL during a launch and started again');

  const { pods, nodes } = await waitForRunning(product, 'crash', 10, 240_000);
  t.equal(pods.length, 10, 'every pod is bound and Running');
  // An instance launched for a NodeClaim that the restart left unrecorded is no leak while the instance GC
  // (30 s minimum age, a pass every 10 s after a start) has yet to reach it; one still running after that is.
  const unheld = async (): Promise<{ claims: { items: { metadata: { name: string }; status?: { providerID?: string } }[] }; live: Awaited<ReturnType<typeof listInstances>> }> => {
    const claims = (await product.kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: { metadata: { name: string }; status?: { providerID?: string } }[] };
    const live = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
    return { claims, live };
  };
  const launchedNow = (await unheld()).live.length;
  const { claims, live } = await waitFor('the instance GC to terminate instances no NodeClaim holds', async () => {
    const seen = await unheld();
    const held = new Set(seen.claims.items.map((c) => c.status?.providerID?.split('/').at(-1)));
    return seen.live.every((i) => held.has(i.id)) ? seen : undefined;
  }, { timeoutMs: 120_000, intervalMs: 2_000 }).catch(() => unheld());
  t.comment(`instances running when every pod ran: ${String(launchedNow)}; after the instance GC: ${String(live.length)}`);
  const byClaim = new Map<string, number>();
  for (const i of live) byClaim.set(i.tags['karpenter.sh/nodeclaim'] ?? '?', (byClaim.get(i.tags['karpenter.sh/nodeclaim'] ?? '?') ?? 0) + 1);
  t.ok([...byClaim.values()].every((n) => n === 1), `no NodeClaim has two instances: ${JSON.stringify(Object.fromEntries(byClaim))}`);
  const claimed = new Set(claims.items.map((c) => c.status?.providerID?.split('/').at(-1)));
  const leaked = live.filter((i) => !claimed.has(i.id));
  t.same(leaked.map((i) => i.id), [], 'every running instance belongs to a NodeClaim');
  const realNodes = (await product.core.listNode({ labelSelector: '!nodesmith.io/launchable' })).items;
  t.equal(realNodes.length, live.length, `one Node per instance (${String(live.length)})`);
  t.ok([...nodes.keys()].every((n) => live.some((i) => i.id === n)), 'every pod runs on a launched instance');
});
