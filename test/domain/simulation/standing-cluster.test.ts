import t from 'tap';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { SimulationInput, SimulationResult, SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import { StandingCluster } from '../../../domain/simulation/standing-cluster.js';
import { benchNodePool, diverseShapes, karpenterPods } from '../../bench/bench-pods.js';
import { syntheticInstanceTypes, syntheticZones } from '../../bench/synthetic-types.js';
import { checkPlan } from '../../support/validate-plan.js';

const types = syntheticInstanceTypes(60);

function cluster(pods: number): SnapshotNode[] {
  const plan = simulate({ nodes: [], daemonSets: [], pendingPods: karpenterPods(pods, diverseShapes, 3), nodePools: [benchNodePool()], instanceTypes: types });
  return plan.nodeClaims.map((c, i) => ({
    name: c.name, labels: { ...c.labels, 'kubernetes.io/hostname': c.name, 'topology.kubernetes.io/zone': c.zone ?? syntheticZones[i % 3] ?? '' },
    taints: [], allocatable: c.allocatable, pods: c.pods,
  }));
}

const batch = (seed: number): SimulationInput['pendingPods'] => karpenterPods(60, diverseShapes, seed).map((p) => ({ ...p, metadata: { ...p.metadata, name: `new-${seed}-${p.metadata.name ?? ''}` } }));
const input = (nodes: readonly SnapshotNode[], seed: number): SimulationInput => ({ nodes, daemonSets: [], pendingPods: batch(seed), nodePools: [benchNodePool()], instanceTypes: types });
const summary = (r: SimulationResult): unknown => ({
  claims: r.nodeClaims.map((c) => [c.instanceTypes[0], c.zone, c.pods.map((p) => p.metadata.name)]),
  existing: r.existing.map((e) => [e.node, e.pods.map((p) => p.metadata.name)]),
  unschedulable: r.unschedulable.map((u) => u.reason),
});

void t.test('a kept standing cluster plans exactly as a fresh snapshot does, as nodes come, change and go', (t) => {
  const standing = new StandingCluster();
  let nodes = cluster(600);
  t.ok(nodes.length > 50, `${nodes.length} nodes`);
  const steps: [string, (n: SnapshotNode[]) => SnapshotNode[]][] = [
    ['unchanged', (n) => n],
    ['a node gone', (n) => n.slice(1)],
    ['a pod gone from a node', (n) => n.map((node, i) => (i === 3 ? { ...node, pods: node.pods.slice(1) } : node))],
    ['a node relabelled into another zone', (n) => n.map((node, i) => (i === 5 ? { ...node, labels: { ...node.labels, 'topology.kubernetes.io/zone': 'test-zone-3' } } : node))],
    ['the same nodes as new objects', (n) => n.map((node) => ({ ...node }))],
  ];
  for (const [what, change] of steps) {
    nodes = change(nodes);
    for (const seed of [11, 12]) {
      const kept = simulate(input(nodes, seed), standing);
      const fresh = simulate(input(nodes, seed));
      t.same(summary(kept), summary(fresh), `${what}, batch ${seed}: same plan`);
      t.same(checkPlan(input(nodes, seed), kept), [], `${what}, batch ${seed}: the plan passes the validator`);
    }
  }
  t.end();
});
