import t from 'tap';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { node, plan, pod, virtualNode } from './builders.js';

void t.test('usage follows pods as they are bound, moved, finished and deleted', (t) => {
  const view = new ClusterState();
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'a', cpu: '1', memory: '1Gi', nodeName: 'n1' }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'b', cpu: '500m', memory: '1Gi', nodeName: 'n1' }) });
  t.same(view.usage('n1'), { cpu: 1500, memory: 2 * 2 ** 30, pods: 2 }, 'pods count before their node arrives');
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'b', cpu: '500m', memory: '1Gi', nodeName: 'n2' }) });
  t.same(view.usage('n1'), { cpu: 1000, memory: 2 ** 30, pods: 1 });
  t.same(view.usage('n2'), { cpu: 500, memory: 2 ** 30, pods: 1 });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'a', cpu: '1', memory: '1Gi', nodeName: 'n1', phase: 'Succeeded' }) });
  t.same(view.usage('n1'), {}, 'a finished pod frees its node');
  view.apply({ kind: 'pod-deleted', namespace: 'default', name: 'b' });
  t.same(view.usage('n2'), {});
  t.equal(view.podCount, 1);
  t.end();
});

void t.test('nodes are classified once, on arrival', (t) => {
  const view = new ClusterState();
  view.apply({ kind: 'node-upserted', node: node('real', { labels: { 'node.kubernetes.io/instance-type': 'm7i.large', 'karpenter.sh/capacity-type': 'spot' } }) });
  view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  t.match(view.node('real'), { isVirtual: false, instanceFamily: 'm7i', capacityType: 'spot', closedReason: undefined, allocatable: { cpu: 4000 } });
  t.match(view.node('launchable-a'), { isVirtual: true });
  view.apply({ kind: 'node-upserted', node: node('real', { unschedulable: true }) });
  t.match(view.node('real'), { closedReason: /cordoned/ });
  view.apply({ kind: 'node-deleted', name: 'real' });
  t.equal(view.node('real'), undefined);
  t.equal(view.nodeCount, 1);
  t.end();
});

void t.test('a node with an unreadable quantity counts as having no capacity', (t) => {
  const view = new ClusterState();
  const broken = node('broken');
  view.apply({ kind: 'node-upserted', node: { ...broken, status: { allocatable: { cpu: 'lots' } } } });
  t.same(view.node('broken')?.allocatable, {});
  t.end();
});

void t.test('room left subtracts pods bound there, pods binding there and assigned pods still pending', (t) => {
  const view = new ClusterState();
  view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/pending', 'default/bound-elsewhere', 'default/unknown'], room: { cpu: '4', memory: '8Gi' } }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'pending', cpu: '1', memory: '1Gi' }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'bound-elsewhere', cpu: '1', memory: '1Gi', nodeName: 'other' }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'binding', cpu: '500m', memory: '512Mi' }) });
  view.reserve('default/binding', 'launchable-a', { cpu: 500, memory: 2 ** 29 });
  const entry = view.plan('launchable-a');
  t.ok(entry);
  if (entry === undefined) return;
  t.same(view.roomLeft(entry, 'launchable-a'), { cpu: 2500, memory: 8 * 2 ** 30 - 2 ** 30 - 2 ** 29, pods: -1 });
  view.release('default/binding');
  t.equal(view.roomLeft(entry, 'launchable-a')['cpu'], 3000, 'a released reservation gives its room back');
  view.reserve('default/binding', 'launchable-a', { cpu: 500 });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'binding', cpu: '500m', memory: '512Mi', nodeName: 'ip-10-0-0-1' }) });
  t.equal(view.roomLeft(entry, 'launchable-a')['cpu'], 3000, 'a pod seen bound releases its reservation');
  t.end();
});

void t.test('room left on a launched plan counts the pods on their way to the real node it became', (t) => {
  // The maxPods-20 e2e run put 23 pods on a 20-pod node: pods binding through the virtual node are held on the
  // real node once it exists, and the virtual node's room forgot those holds.
  const view = new ClusterState();
  view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: [], room: { cpu: '4', memory: '8Gi', pods: '20' }, materializedNode: 'ip-10-0-0-1' }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'bound', cpu: '1', memory: '1Gi', nodeName: 'ip-10-0-0-1' }) });
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'in-flight', cpu: '1', memory: '1Gi' }) });
  view.reserve('default/in-flight', 'ip-10-0-0-1', { cpu: 1000, memory: 2 ** 30, pods: 1 });
  const entry = view.plan('launchable-a');
  if (entry === undefined) throw new Error('the plan is not known');
  t.same(view.roomLeft(entry, 'launchable-a'), { cpu: 2000, memory: 6 * 2 ** 30, pods: 18 }, 'the bound pod and the one binding to the real node both take room');
  t.end();
});

void t.test('readiness waits for the synced event', (t) => {
  const view = new ClusterState();
  t.notOk(view.isSynced);
  view.apply({ kind: 'synced' });
  t.ok(view.isSynced);
  t.end();
});

void t.test("a node's free room follows binds, reservations, finished pods and its own allocatable as they change", (t) => {
  const view = new ClusterState();
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'early', cpu: '1', memory: '1Gi', nodeName: 'n1' }) });
  view.apply({ kind: 'node-upserted', node: node('n1', { cpu: '4', memory: '8Gi' }) });
  t.match(view.node('n1')?.free, { cpu: 3000, memory: 7 * 2 ** 30 }, 'a pod bound before its node arrived is counted');
  view.reserve('default/binding', 'n1', { cpu: 500 });
  t.match(view.node('n1')?.free, { cpu: 2500 }, 'a bind in flight holds its room');
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'binding', cpu: '500m', memory: '512Mi', nodeName: 'n1' }) });
  t.match(view.node('n1')?.free, { cpu: 2500 }, 'the bind landing moves the room from reserved to used, not twice');
  view.apply({ kind: 'pod-upserted', pod: pod({ name: 'early', cpu: '1', memory: '1Gi', nodeName: 'n1', phase: 'Succeeded' }) });
  t.match(view.node('n1')?.free, { cpu: 3500, memory: 8 * 2 ** 30 - 2 ** 29 }, 'a finished pod gives its room back');
  view.apply({ kind: 'node-upserted', node: node('n1', { cpu: '2', memory: '8Gi' }) });
  t.match(view.node('n1')?.free, { cpu: 1500 }, 'a smaller allocatable is seen at once');
  t.end();
});

void t.test("a real node is tied to its plan by the plan's record of the launch when the Node carries no annotation", (t) => {
  const view = new ClusterState();
  view.apply({ kind: 'node-upserted', node: node('ip-10-0-0-9') });
  view.apply({ kind: 'plan-upserted', plan: plan('launchable-b') });
  const tie = (): string | undefined => {
    const real = view.node('ip-10-0-0-9');
    return real === undefined ? 'no such node' : view.materializationOf(real)?.[0];
  };
  t.equal(tie(), undefined, 'not launched for any plan yet');
  view.apply({ kind: 'plan-upserted', plan: plan('launchable-b', { materializedNode: 'ip-10-0-0-9' }) });
  t.equal(tie(), 'launchable-b', 'the plan records the launch');
  view.apply({ kind: 'plan-deleted', nodeName: 'launchable-b' });
  t.equal(tie(), undefined, 'and the tie goes with the plan');
  t.end();
});
