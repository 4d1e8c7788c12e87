import * as k8s from '@kubernetes/client-node';
import { createDeployment } from '../e2e/e2e-support.js';
import { startProductStack } from '../e2e/product-stack.js';
import { demoDisruption, demoNodePools, demoWorkload } from './demo-workload.js';
import { buildTopView } from '../../cli/top-model.js';
import { catalogPrices } from '../../cli/top-prices.js';
import { renderTop } from '../../cli/top-render.js';
import { render, type DemoSnapshot } from './demo-view.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';

// `npm run demo`: the real local stack (etcd, kube-apiserver, controller-manager, kube-scheduler, kwok, moto),
// nodesmith in this process, two NodePools and about fifty pods; then it scales down and stops.
const out = (text: string): void => { process.stdout.write(`${text}\n`); };
const signal = { interrupted: false };
const interrupted = (): boolean => signal.interrupted;
process.once('SIGINT', () => { signal.interrupted = true; });
process.once('SIGTERM', () => { signal.interrupted = true; });

out('starting the local stack and nodesmith (first run builds Kubernetes; later runs take seconds)…');
const product = await startProductStack({ batch: defaultBatchWindows });
out(`stack ready in ${product.stack.dir}\n  kubectl: ${product.stack.bin}/kubectl --kubeconfig ${product.stack.kubeconfigPath} get nodes`);
const apps = product.kc.makeApiClient(k8s.AppsV1Api);
const priceOf = await catalogPrices(product.moto.region);

/** What `nodesmith top --once` prints, from the in-process nodesmith's own cluster model. */
function topFrame(): string[] {
  const state = product.nodesmith?.state;
  if (state === undefined) return ['(nodesmith runs in another process)'];
  const nowMs = Date.now();
  return renderTop(buildTopView(state, priceOf, nowMs), { width: 160, sort: 'name', interactive: false, nowMs });
}

async function snapshot(): Promise<DemoSnapshot> {
  const [pods, nodes, events] = await Promise.all([
    product.core.listNamespacedPod({ namespace: 'default' }),
    product.core.listNode(),
    product.core.listNamespacedEvent({ namespace: 'default' }),
  ]);
  return { pods: pods.items, nodes: nodes.items, events: events.items };
}

function realNodes(s: DemoSnapshot): number {
  return s.nodes.filter((n) => n.metadata?.labels?.['nodesmith.io/launchable'] !== 'true').length;
}

async function showUntil(done: (s: DemoSnapshot) => boolean, timeoutS: number): Promise<DemoSnapshot> {
  const started = Date.now();
  for (;;) {
    const s = await snapshot();
    out(`\n${render(s, (Date.now() - started) / 1000, topFrame())}`);
    if (done(s) || interrupted() || Date.now() - started > timeoutS * 1000) return s;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}

try {
  await product.apply(product.nodePoolYaml('general', demoNodePools.general, `  weight: 10\n${demoDisruption}`));
  await product.apply(product.nodePoolYaml('spot', demoNodePools.spot, demoDisruption));
  out('applied NodePools general (on-demand) and spot, each with its EC2NodeClass');
  for (const spec of demoWorkload) await createDeployment(product, spec);
  const expected = demoWorkload.filter((d) => d.name !== 'impossible').reduce((n, d) => n + d.replicas, 0);
  out(`deployed ${String(expected + 1)} pods; watching them get nodes…`);
  const final = await showUntil((s) => s.pods.filter((p) => p.status?.phase === 'Running').length >= expected, 180);
  const running = final.pods.filter((p) => p.status?.phase === 'Running').length;
  out(`\n${String(running)}/${String(expected)} schedulable pods running; the impossible pod waits with the reason above.`);
  if (!interrupted()) {
    out('scaling every Deployment to 0…');
    for (const spec of demoWorkload) await apps.patchNamespacedDeploymentScale({ name: spec.name, namespace: 'default', body: { spec: { replicas: 0 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await showUntil((s) => s.pods.length === 0, 60);
    out('workload gone; disruption removes the empty nodes once consolidateAfter (10s) has passed…');
    const emptied = await showUntil((s) => realNodes(s) === 0, 240);
    out(`\n${String(realNodes(emptied))} nodes left: the empty nodes were deleted (reason Empty), their instances terminated.`);
    out(`\nthe same view, live, in a terminal: nodesmith top --kubeconfig ${product.stack.kubeconfigPath}`);
  }
} finally {
  out('stopping nodesmith and the stack…');
  await product.stop();
  out('stopped cleanly');
}
