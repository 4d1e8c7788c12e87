// Proves the built image is the controller: `nodesmith run` from the image (its ENTRYPOINT, user and environment,
// via buildah) against the real local stack and moto provisions a Deployment, and serves /readyz and /metrics.
//   npx tsx test/image/prove-run.ts IMAGE        (test/image/build-image.sh runs it after building)
// Exits 1 with the logs when anything fails.
import { createDeployment, listInstances, overcommittedNodes, waitForRunning } from '../e2e/e2e-support.js';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';

const image = process.argv[2];
if (image === undefined || image === '') {
  process.stderr.write('usage: tsx test/image/prove-run.ts IMAGE\n');
  process.exit(2);
}

function say(line: string): void {
  process.stderr.write(`[prove-run] ${line}\n`);
}

async function prove(product: ProductStack): Promise<void> {
  await product.apply(product.nodePoolYaml('default', '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }'));
  const began = Date.now();
  await createDeployment(product, { name: 'from-image', replicas: 6, cpu: '1', memory: '1Gi' });
  const { nodes } = await waitForRunning(product, 'from-image', 6);
  const instances = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
  say(`6 pods Running in ${((Date.now() - began) / 1000).toFixed(1)} s on ${String(nodes.size)} nodes; instances: ${instances.map((i) => i.type).join(', ')}`);
  if (instances.length !== nodes.size) throw new Error(`${String(instances.length)} instances for ${String(nodes.size)} nodes`);
  const overcommitted = await overcommittedNodes(product);
  if (overcommitted.length > 0) throw new Error(`overcommitted: ${overcommitted.join('; ')}`);
  const metrics = await (await fetch(`${product.healthUrl}/metrics`)).text();
  const launched = metrics.split('\n').find((l) => l.startsWith('nodesmith_nodeclaims_created_total'));
  if (launched === undefined) throw new Error('/metrics has no nodesmith_nodeclaims_created_total');
  say(`/metrics: ${launched}`);
}

const product = await startProductStack({ image });
say(`nodesmith run from ${image} is ready (pid ${String(product.childPid())})`);
try {
  await prove(product);
  say('ok');
} catch (error) {
  say(`failed: ${error instanceof Error ? error.message : String(error)}\n${product.logTails()}`);
  process.exitCode = 1;
} finally {
  await product.stop();
}
