import t from 'tap';
import { stringify } from 'yaml';
import { checkManifests } from '../../cli/manifest-gate.js';
import { parseManifestText } from '../../cli/manifest-documents.js';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { nodeClassCapacityOf, type NodeClassLike } from '../../domain/instance-types/node-class-types.js';
import { collectManifests, snapshotFrom } from '../../domain/simulation/manifest-objects.js';
import { simulate } from '../../domain/simulation/simulate.js';
import { deployment } from '../e2e/e2e-support.js';
import { poolCategories, poolMinGeneration } from './race-prices.js';
import { raceWorkload } from './race-workloads.js';

/** The race's mixed workload as the manifests a user would apply, with the race's NodePool, planned offline as `nodesmith plan` plans them. */
async function planMixed(total: number): Promise<ReturnType<typeof simulate>> {
  const workload = raceWorkload('mixed', total);
  const docs: unknown[] = [
    { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: { template: { spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: [...workload.capacityTypes] },
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: poolCategories },
        { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: [String(poolMinGeneration)] },
      ],
    } } } },
    { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default' }, spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }], role: 'node',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'race' } }], securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'race' } }],
    } },
    ...workload.daemonSets.map((ds) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: ds.metadata, spec: ds.spec })),
    ...workload.deployments.map((d) => { const { metadata, spec } = deployment(d); return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec }; }),
  ];
  const gate = await checkManifests([{ file: 'mixed.yaml', ...parseManifestText(docs.map((d) => stringify(d)).join('---\n')) }]);
  const set = collectManifests(gate.admitted);
  const { nodes, pending } = snapshotFrom(set);
  const nodeClasses = set.nodeClasses.map((c) => nodeClassCapacityOf(c as unknown as NodeClassLike));
  return simulate({ nodes, daemonSets: set.daemonSets, pendingPods: pending, nodePools: set.nodePools, nodeClasses, instanceTypes: loadInstanceTypes({ region: 'us-east-1' }) });
}

void t.test("the mixed race's 600 pods are planned on about as many nodes as its hostname spread has pods, each holding one of both groups", async (t) => {
  const result = await planMixed(600);
  t.equal(result.unschedulable.length, 0);
  const spreadPods = 200;
  // Each hostname-spread pod and each soft-anti-affinity pod takes a node of its own from its group; both fit one
  // node together. The plan was 396 nodes (one smallest node per pod of either group) before they were sized so.
  t.ok(result.nodeClaims.length <= spreadPods * 1.05, `${String(result.nodeClaims.length)} nodes for ${String(spreadPods)} spread pods`);
  const app = (c: (typeof result.nodeClaims)[number], name: string): boolean => c.pods.some((p) => p.metadata.labels?.['app'] === name);
  const paired = result.nodeClaims.filter((c) => app(c, 'spread') && app(c, 'apart'));
  t.ok(paired.length >= spreadPods * 0.9, `${String(paired.length)} nodes hold a spread pod and an apart pod`);
});
