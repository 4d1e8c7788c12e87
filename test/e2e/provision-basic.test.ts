import t from 'tap';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { createDeployment, listInstances, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';

void t.test('a Deployment of 20 pods gets the cheapest fitting EC2 instances, and every pod runs', async (t) => {
  const product = await withProduct(t);
  await product.apply(product.nodePoolYaml('default', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }`));
  await createDeployment(product, { name: 'web', replicas: 20, cpu: '1', memory: '1Gi' });

  const { pods, nodes } = await waitForRunning(product, 'web', 20);
  t.equal(pods.length, 20, 'all 20 pods are Running');
  for (const node of nodes.values()) {
    t.notOk(node.metadata?.labels?.['nodesmith.io/launchable'], `${node.metadata?.name ?? ''} is a real node, not a virtual one`);
    t.ok(node.spec?.providerID?.startsWith('aws:///'), `${node.metadata?.name ?? ''} carries the instance's providerID`);
  }
  const instances = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
  t.equal(instances.length, nodes.size, 'one instance per node, none extra');
  const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((ty) => [ty.name, ty]));
  const totalPrice = instances.reduce((sum, i) => sum + (catalog.get(i.type)?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0), 0);
  t.ok(instances.every((i) => /^[cmr]\d/.test(i.type)), `instances are from c, m and r families: ${instances.map((i) => i.type).join(', ')}`);
  t.ok(instances.every((i) => i.lifecycle !== 'spot'), 'the on-demand NodePool launched no spot instance');
  // 20 × (1 CPU, 1 GiB): the cheapest cover is a few large c-family nodes; a plan that opened a node
  // per pod would cost more than 20 × the smallest 2-vCPU c type (≈ $0.085/h).
  t.ok(totalPrice < 20 * 0.085, `the plan packs pods: $${totalPrice.toFixed(3)}/h for ${String(instances.length)} instances`);
  t.comment(`launched: ${instances.map((i) => `${i.type}@${i.zone}`).join(', ')}; $${totalPrice.toFixed(3)}/h`);
  t.same(await overcommittedNodes(product), [], 'no node holds pods requesting more than it has');
});
