import * as k8s from '@kubernetes/client-node';
import { createDeployment, type DeploymentSpec } from '../e2e/e2e-support.js';
import type { ProductStack } from '../e2e/product-stack.js';

/** The annotation kwok's node-never-ready stage keys on (test/stack/kwok-stages.yaml): such a node never reports Ready. */
export const neverReadyAnnotation = 'test.nodesmith.io/never-ready';
/** The pool (and the app of the same name) whose nodes never become Ready while the fault lasts. */
export const neverReadyPool = 'never-ready';
const taint = { key: 'soak.nodesmith.io/pool', value: neverReadyPool, effect: 'NoSchedule' } as const;

/**
 * A pool whose template annotates its nodes so that kwok never makes them Ready (Karpenter copies template
 * annotations onto the Node, and nodesmith creates the Node with them, so they carry it from birth): every node it
 * launches is broken, as with a bad AMI or a network plugin that never starts. Tainted so only its own pods go there.
 */
function poolYaml(product: ProductStack): string {
  const yaml = product.nodePoolYaml(neverReadyPool, `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m] }
      taints: [{ key: ${taint.key}, value: ${taint.value}, effect: ${taint.effect} }]`);
  return yaml.replace('  template:\n', `  template:\n    metadata: { annotations: { ${neverReadyAnnotation}: "true" } }\n`);
}

/** Pods that need a node of the pool: they wait for it the whole time the fault lasts. */
export function neverReadyApp(pods: number): DeploymentSpec {
  return { name: neverReadyPool, replicas: pods, cpu: '250m', memory: '256Mi', nodeSelector: { 'karpenter.sh/nodepool': neverReadyPool }, tolerations: [{ ...taint, operator: 'Equal' }] };
}

/** Starts the fault: the pool and `pods` pods that need it. */
export async function breakNewNodes(product: ProductStack, pods: number): Promise<void> {
  await product.apply(poolYaml(product));
  await createDeployment(product, neverReadyApp(pods));
}

/** Lifts it: the app and the pool go; the pool's NodeClaims go with it (owner references), their instances terminated. */
export async function removeBrokenPool(product: ProductStack): Promise<void> {
  await product.kc.makeApiClient(k8s.AppsV1Api).deleteNamespacedDeployment({ namespace: 'default', name: neverReadyPool }).catch((error: unknown) => {
    if (!(error instanceof k8s.ApiException && error.code === 404)) throw error;
  });
  const r = await product.stack.kubectl(['delete', '--wait=false', '--ignore-not-found', 'nodepool', neverReadyPool]);
  if (r.code !== 0) throw new Error(`deleting the never-ready NodePool failed: ${r.stderr}`);
  const c = await product.stack.kubectl(['delete', '--wait=false', '--ignore-not-found', 'ec2nodeclass', neverReadyPool]);
  if (c.code !== 0) throw new Error(`deleting the never-ready EC2NodeClass failed: ${c.stderr}`);
}
