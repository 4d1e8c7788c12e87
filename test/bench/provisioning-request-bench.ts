import * as k8s from '@kubernetes/client-node';
import { createDeployment, overcommittedNodes, waitForNodePoolReady } from '../e2e/e2e-support.js';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';
import { waitFor } from '../stack/wait-for.js';
import type { Bench } from './bench.js';
import { onDemandFleet } from './on-demand-fleet.js';
import { sideBySide, wayFigures, type WayFigures } from './provisioning-request-figures.js';
import { watchStages, type PodTrace, type StageWatch } from './stage-watch.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';

// One-CPU pods on nodes of at most 8 vCPU: 64 of them need about ten nodes, so the request's all-or-none launch is
// a fleet, not one big instance.
const pool = 'batch';
const poolRequirements = `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }
        - { key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["9"] }`;
const pod = { cpu: '1', memory: '1Gi' };
const template = 'bench-worker';
const atomicClass = 'best-effort-atomic-scale-up.autoscaling.x-k8s.io';
const consumeKey = 'autoscaling.x-k8s.io/consume-provisioning-request';
const requestApi = { group: 'autoscaling.x-k8s.io', version: 'v1', namespace: 'default', plural: 'provisioningrequests' };
const minutes = (n: number): number => n * 60_000;

type Way = 'request' | 'deployment';

/** The PodTemplate the request names: the same pod as the Deployment's (deployment() in e2e-support). */
const podTemplateYaml = `apiVersion: v1
kind: PodTemplate
metadata: { name: ${template}, namespace: default }
template:
  spec:
    terminationGracePeriodSeconds: 0
    containers: [{ name: app, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "${pod.cpu}", memory: ${pod.memory} } } }]
`;

interface RequestStatus { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }

/** Polls the request every 200 ms until Provisioned=True; a Failed=True request, or a timeout, is thrown. */
async function provisionedAt(custom: k8s.CustomObjectsApi, name: string): Promise<number> {
  return waitFor(`ProvisioningRequest ${name} to be Provisioned`, async () => {
    const conditions = ((await custom.getNamespacedCustomObject({ ...requestApi, name })) as RequestStatus).status?.conditions ?? [];
    const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
    if (failed !== undefined) throw new Error(`ProvisioningRequest ${name} failed: ${failed.reason ?? ''} ${failed.message ?? ''}`);
    return conditions.some((c) => c.type === 'Provisioned' && c.status === 'True') ? Date.now() : undefined;
  }, { timeoutMs: minutes(5), intervalMs: 200 });
}

/** The traces of the Deployment's pods (named "<deployment>-<hash>-<suffix>"). */
const podsOf = (watch: StageWatch, name: string): PodTrace[] => [...watch.pods.values()].filter((p) => p.key.startsWith(`default/${name}-`));

/**
 * Asks for `count` pods one way, from a cluster with no node, and waits until all are Running. The request way
 * creates the request, waits for Provisioned=True and only then creates its consuming Deployment, as Kueue admits
 * a job; the Deployment way creates the same Deployment without the annotation.
 */
async function askFor(product: ProductStack, way: Way, name: string, count: number): Promise<{ figures: WayFigures; lines: string[] }> {
  const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);
  const startedMs = Date.now();
  const watch = await watchStages(product.kc, 'default', startedMs);
  try {
    let provisionedMs: number | undefined;
    if (way === 'request') {
      await custom.createNamespacedCustomObject({ ...requestApi, body: {
        apiVersion: 'autoscaling.x-k8s.io/v1', kind: 'ProvisioningRequest', metadata: { name, namespace: 'default' },
        spec: { provisioningClassName: atomicClass, podSets: [{ podTemplateRef: { name: template }, count }] },
      } });
      provisionedMs = await provisionedAt(custom, name);
    }
    const claimsAtProvisioned = watch.nodeClaimsMs.size;
    await createDeployment(product, { name, replicas: count, ...pod, ...(way === 'request' ? { annotations: { [consumeKey]: name } } : {}) });
    await waitFor(`${String(count)} pods of ${name} Running`, () => Promise.resolve(podsOf(watch, name).filter((p) => p.runningMs !== undefined).length >= count ? true : undefined), { timeoutMs: minutes(10), intervalMs: 250 });
    const fleet = await onDemandFleet(product);
    const figures = wayFigures({ startedMs, ...(provisionedMs === undefined ? {} : { provisionedMs }), pods: podsOf(watch, name), nodes: watch.nodeClaimsMs.size, pricePerHour: fleet.price });
    const overcommitted = await overcommittedNodes(product);
    const lines = [
      `${name}: ${way === 'request' ? `Provisioned after ${figures.provisionedS.toFixed(1)} s, ` : ''}all bound after ${figures.allBoundS.toFixed(1)} s, all Running after ${figures.allRunningS.toFixed(1)} s`,
      `  instances ${String(fleet.instances)}: ${fleet.types}; $${fleet.price.toFixed(3)}/hour on demand; NodeClaims ${String(watch.nodeClaimsMs.size)}${way === 'request' ? `, of which made after Provisioned: ${String(watch.nodeClaimsMs.size - claimsAtProvisioned)}` : ''}`,
      `  nodes holding more than their allocatable: ${String(overcommitted.length)}${overcommitted.length === 0 ? '' : ` (${overcommitted.join('; ')})`}`,
    ];
    if (watch.interruptions.length > 0) lines.push(`  watch interrupted: ${watch.interruptions.join('; ')}`);
    return { figures, lines };
  } finally {
    watch.stop();
  }
}

/** Deletes the Deployment, the request and every NodeClaim, and waits until no pod, NodeClaim or instance is left. */
async function clear(product: ProductStack, way: Way, name: string): Promise<void> {
  await product.kc.makeApiClient(k8s.AppsV1Api).deleteNamespacedDeployment({ name, namespace: 'default', propagationPolicy: 'Background' });
  if (way === 'request') await product.kc.makeApiClient(k8s.CustomObjectsApi).deleteNamespacedCustomObject({ ...requestApi, name });
  await waitFor(`the pods of ${name} to be gone`, async () => ((await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${name}` })).items.length === 0 ? true : undefined), { timeoutMs: minutes(5), intervalMs: 1_000 });
  const deleted = await product.stack.kubectl(['delete', 'nodeclaims', '--all', '--wait=false']);
  if (deleted.code !== 0) throw new Error(`kubectl delete nodeclaims failed: ${deleted.stderr}`);
  await waitFor('every NodeClaim and instance to be gone', async () => {
    const claims = await product.stack.kubectl(['get', 'nodeclaims', '-o', 'name']);
    return claims.stdout.trim() === '' && (await onDemandFleet(product)).instances === 0 ? true : undefined;
  }, { timeoutMs: minutes(5), intervalMs: 1_000 });
}

/**
 * The same pods two ways on the real stack (kube-scheduler + extender + nodesmith + kwok + moto), from a cluster
 * with no node each time: as a best-effort-atomic ProvisioningRequest whose consuming Deployment is created once the
 * request is Provisioned (as Kueue admits a job), and as a plain Deployment. Rounds alternate which way goes first.
 */
export const provisioningRequestBench: Bench = {
  name: 'provisioning-request',
  async run({ write, flag }): Promise<void> {
    const count = Number(flag('--pods') ?? 64);
    const rounds = Number(flag('--rounds') ?? 1);
    if (!Number.isInteger(count) || count < 1 || !Number.isInteger(rounds) || rounds < 1) throw new Error(`--pods and --rounds must be whole numbers of at least 1 (got ${String(count)}, ${String(rounds)})`);
    // From dist/, as the image runs it, at e2e-burst's settings (batch idle 1 s, early planning).
    const product = await startProductStack({ childProcess: true, compiled: true, batch: defaultBatchWindows, logLevel: 'info' });
    try {
      await product.apply(product.nodePoolYaml(pool, poolRequirements));
      write(`NodePool Ready ${(await waitForNodePoolReady(product, pool)).toFixed(1)} s after its apply; ${String(count)} pods of ${pod.cpu} CPU, ${pod.memory}, on c/m/r on-demand nodes of at most 8 vCPU\n`);
      await product.apply(podTemplateYaml);
      const figures: Record<Way, WayFigures[]> = { request: [], deployment: [] };
      for (let round = 1; round <= rounds; round++) {
        const order: Way[] = round % 2 === 1 ? ['request', 'deployment'] : ['deployment', 'request'];
        for (const way of order) {
          const name = `${way === 'request' ? 'gang' : 'plain'}-${String(round)}`;
          const { figures: f, lines } = await askFor(product, way, name, count);
          figures[way].push(f);
          write(`${lines.join('\n')}\n`);
          await clear(product, way, name);
        }
      }
      write(`${sideBySide(figures.request, figures.deployment)}\n`);
    } finally {
      await product.stop();
    }
  },
};
