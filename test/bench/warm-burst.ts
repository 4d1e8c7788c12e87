import * as k8s from '@kubernetes/client-node';
import { listClaims } from '../e2e/disruption-support.js';
import { createDeployment } from '../e2e/e2e-support.js';
import type { ProductStack } from '../e2e/product-stack.js';
import { waitFor } from '../stack/wait-for.js';
import { join } from 'node:path';
import { boundCurve } from './bound-curve.js';
import type { BurstDeployment } from './e2e-burst-bench.js';
import { nodesmithStages } from './nodesmith-timeline.js';
import { watchStages } from './stage-watch.js';
import { byVerbAndResource, requestsBetween, requestTotals, writesPerPodLine } from './api-request-totals.js';

const nodeClaimCount = async (product: ProductStack): Promise<number> => (await listClaims(product)).length;

/**
 * The same burst again onto the nodes the first one launched: nothing to plan or launch, so its time to all bound is
 * what this machine's API server, kube-controller-manager and kube-scheduler take for the pods alone (nodesmith's
 * pod webhook and extender still in their path, as for any pod), the floor under a provisioner's figure here. The
 * first burst's pods are deleted first and the NodePool stops consolidating, so the nodes stay.
 */
export async function warmBurst(product: ProductStack, pool: string, deployments: readonly BurstDeployment[], write: (text: string) => void): Promise<void> {
  const patched = await product.stack.kubectl(['patch', 'nodepool', pool, '--type', 'merge', '-p', '{"spec":{"disruption":{"consolidateAfter":"Never"}}}']);
  if (patched.code !== 0) throw new Error(`kubectl patch nodepool ${pool} failed: ${patched.stderr}`);
  const total = deployments.reduce((n, d) => n + d.replicas, 0);
  // Five minutes for 1,000 pods; proportionally more for a 10,000-pod burst.
  const timeoutMs = Math.max(300_000, total * 300);
  const apps = product.kc.makeApiClient(k8s.AppsV1Api);
  for (const d of deployments) await apps.deleteNamespacedDeployment({ name: d.name, namespace: 'default', propagationPolicy: 'Background' });
  await waitFor('the first burst\'s pods to be gone', async () => ((await product.core.listNamespacedPod({ namespace: 'default' })).items.length === 0 ? true : undefined), { timeoutMs, intervalMs: 1_000 });
  const claimsBefore = await nodeClaimCount(product);
  const api0 = await requestTotals(product, byVerbAndResource);
  const started = Date.now();
  const binds = await watchStages(product.kc, 'default', started);
  try {
    for (const d of deployments) await createDeployment(product, { ...d, name: `${d.name}-again` });
    const boundMs = await waitFor(`${String(total)} pods of the second burst bound`, () => Promise.resolve(binds.boundAtMs.size >= total ? Date.now() - started : undefined), { timeoutMs, intervalMs: 250 });
    const createdMs = Math.max(...binds.createdAtMs.values());
    write(`second burst onto the first one's ${String(claimsBefore)} nodes (no launch needed):\n`);
    write(`  created pods every 2 s: ${boundCurve([...binds.createdAtMs.values()])}\n  bound pods every 2 s: ${boundCurve([...binds.boundAtMs.values()])}\n`);
    write(`  all created after ${(createdMs / 1000).toFixed(1)}s, all bound after ${(boundMs / 1000).toFixed(1)}s; NodeClaims made meanwhile: ${String(await nodeClaimCount(product) - claimsBefore)}\n`);
    // Running too: with binds this quick, kwok's backlog (and so its rate) shows more plainly than in the first burst.
    const running = (): number => [...binds.pods.values()].filter((p) => p.runningMs !== undefined).length;
    await waitFor(`${String(total)} pods of the second burst Running`, () => Promise.resolve(running() >= total ? true : undefined), { timeoutMs, intervalMs: 250 });
    write(`  ${writesPerPodLine('the second burst, until all Running', requestsBetween(api0, await requestTotals(product, byVerbAndResource)), total)}`);
    write(`${nodesmithStages(binds, join(product.stack.dir, 'nodesmith.log'), started).trimEnd().replace(/^/gm, '  ')}\n`);
  } finally {
    binds.stop();
  }
}
