// The one cluster model: what every component reads. Tests state what a reader sees after each kind of delta.
import t from 'tap';
import type { PodDisruptionBudget } from '../../../domain/core/pod-disruption-budget.js';
import { filterNodes } from '../../../extender/filter.js';
import { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { node, plan, pod, virtualNode } from '../../extender/builders.js';
import { nodeClaim } from '../../fakes/builders.js';

const unschedulable = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };

function pendingPod(name: string): ReturnType<typeof pod> {
  const p = pod({ name });
  return { ...p, status: unschedulable };
}

void t.test('a node marked for disruption is closed to the very next filter call, before any taint exists', (t) => {
  const state = new ClusterState();
  state.upsertNode(node('ip-1'));
  const incoming = pod({ name: 'web-1' });
  t.same(filterNodes(state, incoming, state.requestsFor(incoming), ['ip-1']).passed, ['ip-1'], 'open before the mark');
  state.marks.markForDisruption('ip-1', { reason: 'Drifted', command: 'cmd-7' });
  const outcome = filterNodes(state, incoming, state.requestsFor(incoming), ['ip-1']);
  t.same(outcome.passed, []);
  t.match(outcome.unresolvable['ip-1'], /being disrupted \(Drifted, command cmd-7\)/);
  state.marks.unmarkDisruption('ip-1');
  t.same(filterNodes(state, incoming, state.requestsFor(incoming), ['ip-1']).passed, ['ip-1'], 'open again after a rollback');
  t.end();
});

void t.test('a node marked for deletion is closed, and its marks go with the node', (t) => {
  const state = new ClusterState();
  state.upsertNode(node('ip-2'));
  state.marks.markDeleting('ip-2');
  t.match(state.node('ip-2')?.closedReason, /marked for deletion/);
  state.removeNode({ metadata: { name: 'ip-2' } });
  state.upsertNode(node('ip-2'));
  t.equal(state.node('ip-2')?.closedReason, undefined, 'a new node under the same name starts unmarked');
  t.end();
});

void t.test('the pods on a node and the pending pods are indexed as pods change, not searched', (t) => {
  const state = new ClusterState();
  state.upsertPod(pod({ name: 'a', nodeName: 'ip-1' }));
  state.upsertPod(pod({ name: 'b', nodeName: 'ip-1' }));
  state.upsertPod(pendingPod('c'));
  t.same(state.podsOn('ip-1').map((p) => p.metadata.name).sort(), ['a', 'b']);
  t.same(state.pendingPods().map((p) => p.metadata.name), ['c']);
  t.ok(state.isPending('default/c'));
  state.upsertPod(pod({ name: 'c', nodeName: 'ip-2' }));
  t.same(state.pendingPods(), [], 'a pod that was bound is no longer pending');
  t.same(state.podsOn('ip-2').map((p) => p.metadata.name), ['c']);
  state.upsertPod(pod({ name: 'a', nodeName: 'ip-1', phase: 'Succeeded' }));
  t.same(state.podsOn('ip-1').map((p) => p.metadata.name), ['b'], 'a finished pod is not on its node any more');
  t.equal(state.boundNodeOf('default/a'), 'ip-1', 'but it is still known to have run there');
  state.removePod({ metadata: { namespace: 'default', name: 'b' } });
  t.same([...state.nodesWithPods()], ['ip-2']);
  t.end();
});

void t.test('a pod with no namespace is keyed in "default", as the API server would put it', (t) => {
  const state = new ClusterState();
  const bare = pod({ name: 'loose', nodeName: 'ip-1' });
  state.upsertPod({ ...bare, metadata: { name: 'loose' } });
  t.ok(state.pods.has('default/loose'));
  state.removePod({ metadata: { name: 'loose' } });
  t.equal(state.podCount, 0);
  t.end();
});

void t.test('a NodeClaim is found from its node by providerID, or by status.nodeName before the node has one', (t) => {
  const state = new ClusterState();
  state.upsertNodeClaim(nodeClaim({ name: 'general-abc', providerID: 'aws:///us-east-1a/i-0abc', nodeName: 'i-0abc' }));
  state.upsertNode({ ...node('i-0abc'), spec: { providerID: 'aws:///us-east-1a/i-0abc' } });
  t.equal(state.nodeClaimOfNode('i-0abc')?.metadata.name, 'general-abc');
  t.equal(state.nodeClaimByProviderId('aws:///us-east-1a/i-0abc')?.metadata.name, 'general-abc');
  state.upsertNodeClaim(nodeClaim({ name: 'general-def', nodeName: 'i-0def' }));
  state.upsertNode(node('i-0def'));
  t.equal(state.nodeClaimOfNode('i-0def')?.metadata.name, 'general-def');
  state.removeNodeClaim({ metadata: { name: 'general-abc' } });
  t.equal(state.nodeClaimOfNode('i-0abc'), undefined);
  t.end();
});

function pdb(name: string, allowed: number, app = 'cart'): PodDisruptionBudget {
  return { metadata: { name, namespace: 'shop' }, spec: { selector: { matchLabels: { app } }, minAvailable: 1 }, status: { disruptionsAllowed: allowed } };
}

void t.test('PDB state per pod: a budget at zero or two budgets at once block an eviction, with the reason', (t) => {
  const state = new ClusterState();
  const cart = { ...pod({ name: 'cart-0', namespace: 'shop' }), metadata: { name: 'cart-0', namespace: 'shop', labels: { app: 'cart' } } };
  t.equal(state.pdbs.evictionBlock(cart), undefined, 'no budget, no block');
  state.upsertPdb(pdb('cart', 1));
  t.equal(state.pdbs.evictionBlock(cart), undefined, 'a budget that allows one eviction lets it go');
  state.upsertPdb(pdb('cart', 0));
  t.equal(state.pdbs.evictionBlock(cart), 'PDB shop/cart allows 0 evictions');
  state.upsertPdb(pdb('cart-too', 3));
  t.match(state.pdbs.evictionBlock(cart), /covered by 2 PDBs \(cart, cart-too\)/);
  state.removePdb({ metadata: { namespace: 'shop', name: 'cart-too' } });
  state.removePdb({ metadata: { namespace: 'shop', name: 'cart' } });
  t.equal(state.pdbs.size, 0);
  t.end();
});

void t.test('a plan rides on its virtual node: the model learns it from the Node, and which plan holds each pod', (t) => {
  const state = new ClusterState();
  const planned = plan('launchable-a', { assignedPods: ['default/web-0'] });
  state.upsertNode({ ...virtualNode('launchable-a'), metadata: { ...virtualNode('launchable-a').metadata, annotations: { 'nodesmith.io/plan-node': JSON.stringify(planned) } } });
  t.same(state.plans.get('launchable-a'), planned);
  t.equal(state.planOfPod('default/web-0'), 'launchable-a');
  state.removeNode({ metadata: { name: 'launchable-a' } });
  t.equal(state.planOfPod('default/web-0'), undefined, 'the plan goes with its node');
  t.end();
});

void t.test('every change is announced to listeners with its kind and key', (t) => {
  const state = new ClusterState();
  const seen: string[] = [];
  const stop = state.onChange((kind, key) => seen.push(`${kind}:${key}`));
  state.upsertPod(pod({ name: 'a' }));
  state.upsertNodeClaim(nodeClaim({ name: 'c1' }));
  state.upsertPdb(pdb('cart', 1));
  state.upsertPlan(plan('launchable-b'));
  stop();
  state.upsertPod(pod({ name: 'b' }));
  t.same(seen, ['pod:default/a', 'nodeclaim:c1', 'pdb:shop/cart', 'plan:launchable-b']);
  t.end();
});

void t.test('a heartbeat that repeats the plan keeps the plan the model has, even one the watch has not caught up with', (t) => {
  const state = new ClusterState();
  const planned = plan('launchable-c', { assignedPods: ['default/web-0'] });
  const withPlan = (p: typeof planned): ReturnType<typeof virtualNode> => ({ ...virtualNode('launchable-c'), metadata: { ...virtualNode('launchable-c').metadata, annotations: { 'nodesmith.io/plan-node': JSON.stringify(p) } } });
  state.upsertNode(withPlan(planned));
  // The materializer records the launch in-process before its annotation patch comes back through the watch.
  state.upsertPlan({ ...planned, materializedNode: 'i-0abc', room: {} });
  state.upsertNode(withPlan(planned));
  t.equal(state.plans.get('launchable-c')?.materializedNode, 'i-0abc', 'a heartbeat with the old annotation does not undo it');
  state.upsertNode(withPlan({ ...planned, materializedNode: 'i-0abc', room: {} }));
  t.equal(state.plans.get('launchable-c')?.materializedNode, 'i-0abc');
  t.end();
});
