import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { waitFor } from '../stack/wait-for.js';
import { listInstances, waitForNodePoolReady, withProduct } from './e2e-support.js';
import type { ProductStack } from './product-stack.js';

const claimYaml = `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: by-hand
  labels: { karpenter.sh/nodepool: default, team: data }
spec:
  nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
  requirements:
    - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
    - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5] }
  resources: { requests: { cpu: '3', memory: 4Gi } }
`;

const condition = (claim: NodeClaim | undefined, type: string): string | undefined => claim?.status?.conditions?.find((c) => c.type === type)?.status;
const typeOf = (claim: NodeClaim): string => claim.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '';
const instanceIdOf = (claim: NodeClaim): string => claim.status?.providerID?.split('/').at(-1) ?? '';

/** What a launched claim shows: its conditions, its type, its Node and its instance. */
async function checkLaunched(t: Test, product: ProductStack, claim: NodeClaim): Promise<void> {
  t.equal(condition(claim, 'Launched'), 'True');
  t.equal(condition(claim, 'Registered'), 'True');
  const type = typeOf(claim);
  t.match(type, /^(m5|c5)\./, `an allowed family: ${type}`);
  t.notOk(['m5.large', 'c5.large'].includes(type), 'one that holds its 3 CPUs');
  const node = await product.core.readNode({ name: claim.status?.nodeName ?? '' });
  t.equal(node.metadata?.labels?.['team'], 'data', "the Node carries the claim's labels");
  t.equal(node.spec?.providerID, claim.status?.providerID);
  t.ok((await listInstances(product)).some((i) => i.id === instanceIdOf(claim) && i.type === type), 'its instance runs in EC2');
}

void t.test('a NodeClaim applied by hand is launched from its own spec, registers and initializes, and goes with its instance when deleted', async (t) => {
  const product = await withProduct(t);
  await product.apply(product.nodePoolYaml('default'));
  await waitForNodePoolReady(product, 'default');
  const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);
  const read = async (): Promise<NodeClaim | undefined> => {
    try {
      return await custom.getClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: 'by-hand' }) as NodeClaim;
    } catch (error) {
      if (error instanceof k8s.ApiException && error.code === 404) return undefined;
      throw error;
    }
  };
  await product.apply(claimYaml);
  const claim = await waitFor('the NodeClaim to launch, register and initialize', async () => {
    const c = await read();
    return condition(c, 'Initialized') === 'True' ? c : undefined;
  }, { timeoutMs: 120_000 });
  await checkLaunched(t, product, claim);
  const id = instanceIdOf(claim);
  await custom.deleteClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: 'by-hand' });
  await waitFor('the NodeClaim to go', async () => ((await read()) === undefined ? true : undefined), { timeoutMs: 120_000 });
  const instance = (await listInstances(product)).find((i) => i.id === id);
  t.ok(instance === undefined || ['shutting-down', 'terminated'].includes(instance.state), `its instance is terminated (${instance?.state ?? 'gone'})`);
});
