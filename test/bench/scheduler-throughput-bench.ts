import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { InformerClusterWatch } from '../../extender/kube/informer-watch.js';
import { serve } from '../../extender/serve.js';
import { KubePodBinder } from '../../provisioner/kube/binder.js';
import { loadKubeConfig } from '../../provisioner/kube/kube-config.js';
import { freePort } from '../stack/free-port.js';
import { startStack, type Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import type { Bench } from './bench.js';

const nodeCount = 100;

async function createNodes(core: k8s.CoreV1Api): Promise<void> {
  for (let i = 0; i < nodeCount; i++) {
    const name = `bench-${String(i).padStart(3, '0')}`;
    const capacity = { cpu: '16', memory: '64Gi', pods: '110' };
    await core.createNode({ body: { metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `z${String(i % 3)}` } }, status: { capacity, allocatable: capacity } } });
  }
  await waitFor('bench nodes Ready and untainted', async () => {
    const nodes = (await core.listNode()).items;
    return nodes.filter((n) => (n.spec?.taints ?? []).length === 0 && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === nodeCount ? true : undefined;
  }, { timeoutMs: 120_000 });
}

async function createPods(core: k8s.CoreV1Api, namespace: string, count: number): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const body = (i: number): k8s.V1Pod => ({ metadata: { name: `p-${String(i)}`, labels: { app: 'bench' } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } });
  for (let i = 0; i < count; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => core.createNamespacedPod({ namespace, body: body(i + j) })));
  }
}

/** Starts kube-scheduler and times it until every pod in `namespace` is bound; pods/s. */
async function timeScheduling(ctx: { stack: Stack; core: k8s.CoreV1Api }, namespace: string, count: number, extenderUrl?: string): Promise<number> {
  const { stack, core } = ctx;
  await stack.startScheduler(extenderUrl === undefined ? [] : [{ urlPrefix: extenderUrl, filterVerb: 'filter', prioritizeVerb: 'prioritize', bindVerb: 'bind', weight: 5, nodeCacheCapable: true, httpTimeout: '60s' }]);
  const started = Date.now();
  await waitFor(`${String(count)} pods bound in ${namespace}`, async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    return pods.filter((p) => p.spec?.nodeName).length === count ? true : undefined;
  }, { timeoutMs: 600_000, intervalMs: 250 });
  const seconds = (Date.now() - started) / 1000;
  await stack.components.get('kube-scheduler')?.stop();
  return count / seconds;
}

/**
 * kube-scheduler's own throughput with and without the extender, in one run on one stack (100 kwok nodes):
 * the pods are created while no scheduler runs, then kube-scheduler starts and the clock runs until the last
 * pod is bound. The ratio is the extender's cost.
 */
export const schedulerThroughputBench: Bench = {
  name: 'scheduler-throughput',
  async run({ maxPods, write }): Promise<void> {
    const count = Math.min(maxPods, 1000);
    const stack = await startStack({ scheduler: false });
    // The harness reuses TLS connections too, so its polling burdens both runs as little as it can.
    const kc = loadKubeConfig(stack.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const port = await freePort();
    const extender = await serve({ watch: InformerClusterWatch.fromKubeconfig(stack.kubeconfigPath), binder: KubePodBinder.fromKubeconfig(stack.kubeconfigPath), registry: new Registry(), logger: false, host: '127.0.0.1', port });
    try {
      await createNodes(core);
      await createPods(core, 'without', count);
      const without = await timeScheduling({ stack, core }, 'without', count);
      write(`kube-scheduler alone: ${String(count)} pods over ${String(nodeCount)} nodes at ${without.toFixed(0)} pods/s\n`);
      await createPods(core, 'with', count);
      const withExtender = await timeScheduling({ stack, core }, 'with', count, extender.url);
      write(`with the nodesmith extender (filter, prioritize, bind): ${withExtender.toFixed(0)} pods/s\n`);
      write(`ratio with/without: ${(withExtender / without).toFixed(2)} (goal ≥ 0.9)\n`);
    } finally {
      await extender.close();
      await stack.stop();
    }
  },
};
