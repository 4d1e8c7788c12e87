import * as k8s from '@kubernetes/client-node';
import { createDeployment } from '../e2e/e2e-support.js';
import { applyDaemonSets } from '../e2e/mixed-workload.js';
import type { ProductStack, ProductStackOptions } from '../e2e/product-stack.js';
import { waitFor } from '../stack/wait-for.js';
import { isServing, takeSnapshot } from './cluster-snapshot.js';
import { expiringPoolYaml, pdb, soakApps, soakPoolYaml } from './workload.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';

export const soakQueue = 'soak-interruptions';

/**
 * nodesmith as the chart runs it: two `nodesmith run` replicas electing a leader, as child processes so that they
 * can be SIGKILLed and their memory read, reaching the API server through a Service whose connections the soak can
 * reset, with an interruption queue in moto and consolidation on.
 */
export function soakStackOptions(compiled = false): ProductStackOptions {
  return { childProcess: true, compiled, replicas: 2, apiService: true, interruptionQueue: soakQueue, consolidation: { spotToSpot: false }, batch: defaultBatchWindows };
}

/**
 * The pools, DaemonSets, Deployments and PDBs the soak starts from, all pods Running before any churn or fault. The
 * DaemonSets are the mixed workload's CNI and log agent, which every real cluster runs: each node nodesmith launches
 * must keep room for them, or the soak sees a daemon pod without room.
 */
export async function setUpWorkload(product: ProductStack, expireAfter: string): Promise<void> {
  await product.apply(soakPoolYaml(product, 0));
  await product.apply(expiringPoolYaml(product, expireAfter));
  await applyDaemonSets(product);
  const policy = product.kc.makeApiClient(k8s.PolicyV1Api);
  const apps = soakApps();
  for (const app of apps) {
    await createDeployment(product, app.spec);
    if (app.guarded) await policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: pdb(app.spec.name, app.spec.name) });
  }
  const wanted = apps.reduce((sum, a) => sum + a.spec.replicas, 0);
  await waitFor(`the soak's ${String(wanted)} first pods Running`, async () => {
    const s = await takeSnapshot(product);
    return s.pods.filter(isServing).length >= wanted ? true : undefined;
  }, { timeoutMs: 300_000, intervalMs: 2_000 });
}

/** The `expireAfter` of the expiring pool: nodes expire a few times in any run, yet not all the time in a long one. */
export function expiryFor(minutes: number): string {
  return `${String(Math.max(3, Math.min(10, Math.round(minutes / 4))))}m`;
}
