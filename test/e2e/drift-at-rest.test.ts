import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { findCondition } from '../../domain/api/status-conditions.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

// Every drift signal is rechecked in full (and the instances described again) every 10 s instead of 5 min, so the
// minute watched below covers several full passes besides the checks each NodeClaim change triggers.
const product = await withProduct(t, { driftRecheckMs: 10_000 });
const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);

const watchMs = 60_000;

async function nodeClaims(): Promise<NodeClaim[]> {
  const list = (await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: NodeClaim[] };
  return list.items;
}

/** "name: reason (message)" for each NodeClaim whose Drifted condition is True. */
function drifted(claims: readonly NodeClaim[]): string[] {
  return claims.flatMap((c) => {
    const condition = findCondition(c, 'Drifted');
    return condition?.status === 'True' ? [`${c.metadata.name ?? ''}: ${condition.reason} (${condition.message})`] : [];
  });
}

void t.test('no launched NodeClaim drifts while nothing changed: AMI, subnet, security groups, hashes and requirements all still match', async (t) => {
  // Spot and on-demand both: moto launches them by different paths, and a spot instance came out with the VPC's
  // default security group instead of its template's (SecurityGroupDrift within seconds of every launch).
  for (const capacity of ['spot', 'on-demand']) {
    await product.apply(product.nodePoolYaml(capacity, `
        - { key: karpenter.sh/capacity-type, operator: In, values: [${capacity}] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m] }`));
    await createDeployment(product, { name: `${capacity}-app`, replicas: 4, cpu: '1', memory: '1Gi', nodeSelector: { 'karpenter.sh/nodepool': capacity } });
  }
  for (const capacity of ['spot', 'on-demand']) await waitForRunning(product, `${capacity}-app`, 4);
  const launched = new Set((await nodeClaims()).map((c) => c.metadata.name ?? ''));
  t.ok(launched.size >= 2, `NodeClaims launched in both pools: ${[...launched].join(', ')}`);

  const seen = new Set<string>();
  const until = Date.now() + watchMs;
  let claims: NodeClaim[] = [];
  while (Date.now() < until) {
    claims = await nodeClaims();
    for (const line of drifted(claims)) seen.add(line);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  t.same([...seen], [], `no NodeClaim was marked Drifted over the ${String(watchMs / 1000)} s after its launch`);
  t.same(claims.map((c) => c.metadata.name ?? '').sort(), [...launched].sort(), 'the same NodeClaims are there at the end: none was replaced');
});
