import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { findCondition } from '../../domain/api/status-conditions.js';
import { passesFromNow } from './controller-passes.js';
import { createDeployment, waitForRunning, withProduct } from './e2e-support.js';

// Every drift signal is rechecked in full (and the instances described again) every 3 s instead of 5 min. The watch
// below lasts 6 of those periods and until the drift controller has made 6 passes more (counted on nodesmith's
// /metrics), besides the checks each NodeClaim change triggers: the 6 full rechecks the minute held at 10 s.
const recheckMs = 3_000;
const rechecks = 6;
const product = await withProduct(t, { driftRecheckMs: recheckMs });
const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);

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
  const started = Date.now();
  const passes = await passesFromNow(product.healthUrl, { 'nodeclaim.disruption.drift': rechecks });
  let claims: NodeClaim[] = [];
  for (let over = false; !over;) {
    over = Date.now() - started >= rechecks * recheckMs && (await passes()).done;
    claims = await nodeClaims();
    for (const line of drifted(claims)) seen.add(line);
    if (!over) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  t.same([...seen], [], `no NodeClaim was marked Drifted over the ${((Date.now() - started) / 1000).toFixed(1)} s after its launch (${String(rechecks)} full rechecks and more)`);
  t.same(claims.map((c) => c.metadata.name ?? '').sort(), [...launched].sort(), 'the same NodeClaims are there at the end: none was replaced');
});
