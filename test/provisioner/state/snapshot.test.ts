// The planner's view of the cluster, built from the model: nodes (optionally without some) and pending pods apart.
import t from 'tap';
import { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { snapshotNodes, unplannedPendingPods } from '../../../provisioner/state/snapshot.js';
import { node, plan, pod, virtualNode } from '../../extender/builders.js';
import { condition, nodeClaim } from '../../fakes/builders.js';

const unschedulable = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };
const pending = (name: string): ReturnType<typeof pod> => ({ ...pod({ name }), status: unschedulable });

function cluster(): ClusterState {
  const state = new ClusterState();
  state.upsertNode(node('ip-1'));
  state.upsertNode(node('ip-2'));
  state.upsertPod(pod({ name: 'a', nodeName: 'ip-1' }));
  state.upsertPod(pod({ name: 'b', nodeName: 'ip-2' }));
  state.upsertPod(pending('waiting'));
  state.upsertPod(pending('planned'));
  state.upsertNode(virtualNode('launchable-x'));
  state.upsertPlan(plan('launchable-x', { assignedPods: ['default/planned'] }));
  return state;
}

void t.test('the snapshot holds each real node with its pods, and a virtual node with the pods its plan holds', (t) => {
  const nodes = snapshotNodes(cluster());
  t.same(nodes.map((n) => [n.name, n.pods.map((p) => p.metadata.name), n.inFlight === true]), [
    ['ip-1', ['a'], false], ['ip-2', ['b'], false], ['launchable-x', ['planned'], true],
  ]);
  t.end();
});

void t.test('"the cluster without these nodes" leaves them out and keeps the rest', (t) => {
  const nodes = snapshotNodes(cluster(), { without: new Set(['ip-1']) });
  t.same(nodes.map((n) => n.name), ['ip-2', 'launchable-x']);
  t.end();
});

void t.test('the pending pods to plan are those no plan holds', (t) => {
  t.same(unplannedPendingPods(cluster()).map((p) => p.metadata.name), ['waiting']);
  t.end();
});

void t.test('a deleting node is not offered, and pods of a launched plan count on the real node they are bound for', (t) => {
  const state = cluster();
  state.upsertNode({ ...node('ip-2'), metadata: { ...node('ip-2').metadata, deletionTimestamp: '2026-11-23T00:00:00Z' } });
  state.upsertNode(node('i-0launched'));
  state.upsertPlan(plan('launchable-x', { assignedPods: ['default/planned'], materializedNode: 'i-0launched', room: {} }));
  const nodes = snapshotNodes(state);
  t.same(nodes.map((n) => [n.name, n.pods.map((p) => p.metadata.name)]), [['ip-1', ['a']], ['i-0launched', ['planned']]]);
  t.same(unplannedPendingPods(state).map((p) => p.metadata.name), ['waiting'], 'the launched plan still holds its pod');
  t.end();
});

void t.test('a planned node shows the labels of every instance type its launch may pick', (t) => {
  const state = cluster();
  state.upsertPlan(plan('launchable-x', { assignedPods: ['default/planned'], instanceTypes: ['c7g.large', 't3.large'] }));
  const typeLabels = (name: string): Record<string, string> => ({ 'node.kubernetes.io/instance-type': name, 'karpenter.k8s.aws/instance-family': name.split('.')[0] ?? '' });
  const planned = snapshotNodes(state, { typeLabels }).find((n) => n.name === 'launchable-x');
  t.same(planned?.launchLabels?.map((l) => l['karpenter.k8s.aws/instance-family']), ['c7g', 't3']);
  t.equal(planned?.launchLabels?.[1]?.['kubernetes.io/hostname'], planned?.labels['kubernetes.io/hostname'], 'the node\'s own labels stay under the type\'s');
  t.end();
});

void t.test("a pod refused its plan's node is planned elsewhere but its room there stays held, as the extender's filter holds it", (t) => {
  const state = cluster();
  state.refusals.refuse('default/planned', 'launchable-x', [], Number.MAX_SAFE_INTEGER);
  const virtual = snapshotNodes(state).find((n) => n.name === 'launchable-x');
  t.same(virtual?.pods.map((p) => p.metadata.name), [], 'the pod is no longer among the plan\'s');
  t.same(unplannedPendingPods(state).map((p) => p.metadata.name).sort(), ['planned', 'waiting'], 'and is planned again');
  // The filter still counts it against the plan's room (room.ts): a pass offering that room to another pod would
  // plan it where the filter refuses it, pass after pass.
  t.same(virtual?.reserved, state.requestsOf('default/planned'), 'its room is held as the filter holds it');
  t.end();
});

void t.test("the room the snapshot leaves on a launched plan's real node is the room the filter leaves there", (t) => {
  const state = cluster();
  state.upsertNode(node('i-0launched'));
  state.upsertPod(pending('refused'));
  state.upsertPlan(plan('launchable-x', { assignedPods: ['default/planned', 'default/refused'], materializedNode: 'i-0launched', room: {} }));
  state.refusals.refuse('default/refused', 'i-0launched', [], Number.MAX_SAFE_INTEGER);
  const real = snapshotNodes(state).find((n) => n.name === 'i-0launched');
  t.same(real?.pods.map((p) => p.metadata.name), ['planned']);
  t.same(real?.reserved, state.requestsOf('default/refused'), 'the refused pod\'s room is held beside the planned one');
  t.end();
});

void t.test('a virtual node whose plan is gone takes no pod while its deletion is on its way', (t) => {
  const state = cluster();
  // The planner pruned the plan and deleted its node; the node watch has not delivered the deletion yet.
  state.removePlan('launchable-x');
  t.ok(state.nodes.has('launchable-x'), 'the virtual node is still in the model');
  t.same(snapshotNodes(state).map((n) => n.name), ['ip-1', 'ip-2'], 'it is not offered as a real node with its whole allocatable free');
  t.end();
});

void t.test("a launched node not initialized yet is planned without its ephemeral and startup taints, as Karpenter's StateNode.Taints", (t) => {
  const state = new ClusterState();
  const cni = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoSchedule' };
  const team = { key: 'team', value: 'a', effect: 'NoSchedule' };
  const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
  const taints = [team, notReady, cni, { key: 'readiness.k8s.io/network', effect: 'NoSchedule' }];
  state.upsertNodeClaim(nodeClaim({ name: 'default-abc', nodeName: 'i-0abc', startupTaints: [cni] }));
  state.upsertNode(node('i-0abc', { taints }));
  state.upsertNode(node('unmanaged', { taints: [team, notReady, cni] }));
  const taintsOf = (name: string): string[] => snapshotNodes(state).find((n) => n.name === name)?.taints.map((x) => x.key) ?? [];
  t.same(taintsOf('i-0abc'), ['team'], 'the NodePool taint stays: it is the node\'s for good');
  t.same(taintsOf('unmanaged'), ['team', 'node.kubernetes.io/not-ready', 'node.cilium.io/agent-not-ready'], 'a node no NodeClaim of ours stands behind is taken as it is');
  state.upsertNodeClaim(nodeClaim({ name: 'default-abc', nodeName: 'i-0abc', startupTaints: [cni], conditions: [condition('Initialized', 'True', 0)] }));
  t.same(taintsOf('i-0abc'), taints.map((x) => x.key), 'once initialized, a taint still there is one to respect');
  t.end();
});
