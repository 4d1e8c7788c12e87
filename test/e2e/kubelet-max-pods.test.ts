import t from 'tap';
import { createDeployment, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';

void t.test('an EC2NodeClass with kubelet maxPods 20 and reserved resources gets nodes that hold no more than 20 pods each', async (t) => {
  const product = await withProduct(t);
  const yaml = product
    .nodePoolYaml('pods20', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m] }`)
    .replace('  amiSelectorTerms:', '  kubelet: { maxPods: 20, systemReserved: { cpu: 100m, memory: 100Mi }, kubeReserved: { cpu: 200m } }\n  amiSelectorTerms:');
  t.match(yaml, /maxPods: 20/, 'the class asks for 20 pods per node');
  await product.apply(yaml);
  // 45 pods small enough that one node of any size would hold them all, were it not for maxPods.
  await createDeployment(product, { name: 'small', replicas: 45, cpu: '10m', memory: '16Mi' });

  const { pods, nodes } = await waitForRunning(product, 'small', 45);
  t.equal(pods.length, 45, 'all 45 pods are Running');
  const perNode = new Map<string, number>();
  for (const pod of pods) perNode.set(pod.spec?.nodeName ?? '', (perNode.get(pod.spec?.nodeName ?? '') ?? 0) + 1);
  t.comment(`pods per node: ${JSON.stringify(Object.fromEntries(perNode))}`);
  t.ok([...perNode.values()].every((n) => n <= 20), 'no node holds more than 20 pods');
  t.ok(nodes.size >= 3, `45 pods at 20 per node need at least 3 nodes (${String(nodes.size)})`);
  for (const node of nodes.values()) {
    t.equal(node.status?.capacity?.['pods'], '20', `${node.metadata?.name ?? ''} registers with 20 pods, its class's maxPods`);
  }
  t.same(await overcommittedNodes(product), [], 'no node holds pods requesting more than it has');
});
