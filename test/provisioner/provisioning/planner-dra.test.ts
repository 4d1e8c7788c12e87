// Pods that ask for GPUs through ResourceClaims: planned onto GPU types, whose virtual nodes publish their devices.
import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import type { Node } from '../../../domain/core/node.js';
import type { Pod } from '../../../domain/core/pod.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { devicesOfNode } from '../../../domain/dra/instance-devices.js';
import { parseResourceList } from '../../../domain/resource-list.js';
import { planOnce, type PlannerDeps } from '../../../provisioner/provisioning/planner.js';
import type { VirtualNodeSlices } from '../../../provisioner/ports/virtual-node-slices.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { nodeClass, nodePool, pendingPod } from '../../fakes/provisioning-builders.js';

const types = loadInstanceTypes({ region: 'us-east-1' }).filter((ty) => /^(m7i|g5|g6)\.(xlarge|2xlarge|12xlarge)$/.test(ty.name));

class RecordedSlices implements VirtualNodeSlices {
  readonly published: { node: string; drivers: string[]; devices: number }[] = [];
  publish(node: Node): Promise<void> {
    const drivers = devicesOfNode(node.metadata.labels ?? {}, parseResourceList(node.status?.capacity));
    this.published.push({ node: node.metadata.name ?? '', drivers: drivers.map((d) => d.driver), devices: drivers.reduce((n, d) => n + d.devices.length, 0) });
    return Promise.resolve();
  }
}

function claimingPod(name: string, template: string): Pod {
  const pod = pendingPod(name, { tolerations: [{ operator: 'Exists' }] });
  return { ...pod, spec: { ...pod.spec, resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: template }] } } as Pod;
}

function planner(pods: Pod[]): { deps: PlannerDeps; nodes: FakeNodeWriter; events: FakeEventRecorder; slices: RecordedSlices } {
  const state = stateWith({ nodePools: [nodePool()], nodeClasses: [nodeClass()], pods });
  state.upsertObject('deviceclass', { metadata: { name: 'gpu.nvidia.com' }, spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com'" } }] } });
  for (const [name, count, selectors] of [['one', 1, []], ['four-a10g', 4, ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A10G'"]], ['cel-or', 1, ["device.driver == 'a' || true"]]] as const) {
    state.upsertObject('resourceclaimtemplate', { metadata: { name, namespace: 'default' }, spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count, selectors: selectors.map((expression) => ({ cel: { expression } })) } }] } } } });
  }
  const nodes = new FakeNodeWriter(state);
  const events = new FakeEventRecorder();
  const slices = new RecordedSlices();
  const deps: PlannerDeps = { state, nodes, events, slices, clock: new FakeClock(1_700_000_000_000), instanceTypes: () => types, unavailableOfferings: () => new Set(), launchNow: () => undefined };
  return { deps, nodes, events, slices };
}

void t.test('a pod claiming one GPU is planned onto a GPU type, whose virtual node publishes the GPU', async (t) => {
  const p = planner([claimingPod('trainer', 'one')]);
  const summary = await planOnce(p.deps);
  t.equal(summary.newNodes, 1);
  const [plan] = [...p.deps.state.plans.values()];
  t.ok(plan?.instanceTypes.every((name) => name.startsWith('g5.') || name.startsWith('g6.')), `planned GPU types only: ${plan?.instanceTypes.join(', ') ?? ''}`);
  t.same(p.slices.published.map((s) => [s.node, s.drivers, s.devices]), [[plan?.nodeName, ['gpu.nvidia.com'], 1]]);
  t.end();
});

void t.test('two one-GPU pods do not share a one-GPU node: the planner counts devices', async (t) => {
  const p = planner([claimingPod('a', 'one'), claimingPod('b', 'one')]);
  await planOnce(p.deps);
  const gpusPlanned = [...p.deps.state.plans.values()].map((plan) => plan.assignedPods.length);
  t.ok(p.slices.published.reduce((n, s) => n + s.devices, 0) >= 2, `two GPUs published for two claims: ${JSON.stringify(p.slices.published)}`);
  t.equal(gpusPlanned.reduce((a, b) => a + b, 0), 2);
  t.end();
});

void t.test('a claim selecting four A10Gs is planned onto a g5 with four of them', async (t) => {
  const p = planner([claimingPod('big', 'four-a10g')]);
  await planOnce(p.deps);
  const [plan] = [...p.deps.state.plans.values()];
  t.same(plan?.instanceTypes, ['g5.12xlarge']);
  t.end();
});

void t.test('a claim with a selector nodesmith does not evaluate launches nothing, and the pod is told why', async (t) => {
  const p = planner([claimingPod('odd', 'cel-or')]);
  await planOnce(p.deps);
  t.same(p.nodes.created, []);
  t.match(p.events.events.map((e) => [e.reason, e.message]), [['UnsupportedResourceClaim', /selector clause "device.driver == 'a' \|\| true" is not one nodesmith evaluates/]]);
  t.end();
});
