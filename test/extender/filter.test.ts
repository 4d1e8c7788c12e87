import t from 'tap';
import { podAnnotations } from '../../domain/product-keys.js';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';

interface FilterResult {
  Nodes: unknown;
  NodeNames: string[] | null;
  FailedNodes: Record<string, string>;
  FailedAndUnresolvableNodes: Record<string, string>;
  Error: string;
}

async function filter(h: ReturnType<typeof harness>, payload: unknown): Promise<FilterResult> {
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: payload as object });
  if (response.statusCode !== 200) throw new Error(`filter answered ${response.statusCode}: ${response.body}`);
  return response.json<FilterResult>();
}

void t.test('open real nodes pass and closed ones are rejected with a reason', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('open') });
  h.view.apply({ kind: 'node-upserted', node: node('cordoned', { unschedulable: true }) });
  h.view.apply({ kind: 'node-upserted', node: node('deleting', { deleting: true }) });
  h.view.apply({ kind: 'node-upserted', node: node('disrupted', { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }) });
  const result = await filter(h, extenderArgs(pod(), ['open', 'cordoned', 'deleting', 'disrupted', 'ghost']));
  t.same(result.NodeNames, ['open']);
  t.equal(result.Nodes, null);
  t.equal(result.Error, '');
  t.same(result.FailedNodes, {});
  t.match(result.FailedAndUnresolvableNodes, {
    cordoned: /cordoned/,
    deleting: /being deleted/,
    disrupted: /karpenter.sh\/disrupted/,
    ghost: /not in the extender cache/,
  });
});

void t.test('a virtual node passes for the pod its plan assigned to it', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/web-0'], room: { cpu: '100m', memory: '1Mi' } }) });
  const result = await filter(h, extenderArgs(pod(), ['launchable-a']));
  t.same(result.NodeNames, ['launchable-a']);
});

void t.test('an unassigned pod passes a virtual node only while the planned room holds it', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '1', memory: '2Gi', pods: '10' } }) });
  // The assigned pod is still pending: its 600m stay promised to it, leaving 400m.
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '600m' }) });
  const small = await filter(h, extenderArgs(pod({ name: 'small', cpu: '400m' }), ['launchable-a']));
  t.same(small.NodeNames, ['launchable-a']);
  const large = await filter(h, extenderArgs(pod({ name: 'large', cpu: '500m' }), ['launchable-a']));
  t.same(large.NodeNames, []);
  t.equal(large.FailedNodes['launchable-a'], 'not enough planned room: cpu 500m wanted, 400m left');
});

void t.test('a launched node takes no pod that would crowd out the pods still coming from its plan', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '1', memory: '4Gi', pods: '10' }, materializedNode: 'real-a' }) });
  // kube-scheduler sees real-a empty, but 600m of it are promised to the planned pod, not yet scheduled.
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '600m' }) });
  const other = await filter(h, extenderArgs(pod({ name: 'other', cpu: '500m' }), ['real-a']));
  t.same(other.NodeNames, []);
  t.equal(other.FailedNodes['real-a'], 'launched for launchable-a: not enough room beside the pods planned for it: cpu 500m wanted, 400m left');
  t.same((await filter(h, extenderArgs(pod({ name: 'small', cpu: '400m' }), ['real-a']))).NodeNames, ['real-a'], 'a pod that fits beside them passes');
  t.same((await filter(h, extenderArgs(pod({ name: 'planned', cpu: '600m' }), ['real-a']))).NodeNames, ['real-a'], 'the planned pod itself passes');
  h.view.apply({ kind: 'plan-deleted', nodeName: 'launchable-a' });
  // The pods filtered above went elsewhere: they no longer hold real-a while kube-scheduler binds them.
  for (const key of ['default/small', 'default/planned']) h.view.forgetCandidates(key);
  t.same((await filter(h, extenderArgs(pod({ name: 'other', cpu: '500m' }), ['real-a']))).NodeNames, ['real-a'], 'without the plan it is an ordinary node');
});

void t.test("a launched node's pod slots count even after its plan's room was emptied at launch", async (t) => {
  // The launch empties the plan's room (only its own pods may still come through the virtual node), and the pod
  // slots of the real node went unchecked: a maxPods-20 node took 23 pods on the real stack.
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '4', memory: '16Gi', pods: '2' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: [], room: {}, materializedNode: 'real-a' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'one', cpu: '10m', nodeName: 'real-a', phase: 'Running' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'two', cpu: '10m' }) });
  h.view.reserve('default/two', 'real-a', { cpu: 10, pods: 1 });
  const third = await filter(h, extenderArgs(pod({ name: 'three', cpu: '10m' }), ['real-a']));
  t.same(third.NodeNames, [], 'a third pod does not fit two pod slots');
  t.match(third.FailedNodes['real-a'], /pods 1 wanted, 0 left/);
});

void t.test('once launched, a virtual node takes only its own pods: others go to the real node, whose slots are checked', async (t) => {
  // Admitting other pods through the launched virtual node skipped the real node's pod slots: 28 pods on a
  // maxPods-20 node on the real stack.
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '4', memory: '16Gi', pods: '20' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: {}, materializedNode: 'real-a' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '10m' }) });
  const other = await filter(h, extenderArgs(pod({ name: 'other', cpu: '10m' }), ['launchable-a']));
  t.same(other.NodeNames, [], 'the launched virtual node does not take a pod its plan did not assign');
  t.same((await filter(h, extenderArgs(pod({ name: 'planned', cpu: '10m' }), ['launchable-a']))).NodeNames, ['launchable-a'], 'its own pod still binds there');
});

void t.test('a launched node is known by its NodeClaim annotation before its plan records the launch', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '1', memory: '4Gi', pods: '10' } }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '600m' }) });
  // The Node exists (so kube-scheduler may offer it) but the plan does not say materializedNode yet.
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10', annotations: { 'karpenter.sh/nodeclaim': 'a' } }) });
  const other = await filter(h, extenderArgs(pod({ name: 'other', cpu: '500m' }), ['real-a']));
  t.equal(other.FailedNodes['real-a'], 'launched for launchable-a: not enough room beside the pods planned for it: cpu 500m wanted, 400m left');
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'direct', cpu: '300m', nodeName: 'real-a', phase: 'Running' }) });
  const late = await filter(h, extenderArgs(pod({ name: 'late', cpu: '200m' }), ['launchable-a']));
  t.equal(late.FailedNodes['launchable-a'], 'not enough planned room: cpu 200m wanted, 100m left', 'the virtual node counts the real node\'s pods too');
});

void t.test('once launched, the virtual node counts the pods kube-scheduler placed on the real node', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'node-upserted', node: node('real-a', { cpu: '1', memory: '4Gi', pods: '10' }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { room: { cpu: '1', memory: '4Gi', pods: '10' }, materializedNode: 'real-a' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'direct', cpu: '700m', nodeName: 'real-a', phase: 'Running' }) });
  const late = await filter(h, extenderArgs(pod({ name: 'late', cpu: '400m' }), ['launchable-a']));
  t.same(late.NodeNames, []);
  t.equal(late.FailedNodes['launchable-a'], 'not enough planned room: cpu 400m wanted, 300m left');
});

void t.test('a pod binding to a virtual node holds its room against the next pod', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { room: { cpu: '1', memory: '2Gi' } }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'first', cpu: '700m' }) });
  h.view.reserve('default/first', 'launchable-a', { cpu: 700, memory: 0 });
  const second = await filter(h, extenderArgs(pod({ name: 'second', cpu: '700m' }), ['launchable-a']));
  t.match(second.FailedNodes, { 'launchable-a': /cpu 700m wanted, 300m left/ });
});

void t.test('virtual nodes are rejected when a real node also fits', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('real') });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/web-0'] }) });
  const result = await filter(h, extenderArgs(pod(), ['launchable-a', 'real']));
  t.same(result.NodeNames, ['real']);
  t.match(result.FailedAndUnresolvableNodes, { 'launchable-a': /real node real fits/ });
});

void t.test('a virtual node without a plan is rejected', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  const result = await filter(h, extenderArgs(pod(), ['launchable-a']));
  t.match(result.FailedAndUnresolvableNodes, { 'launchable-a': /no plan/ });
});

void t.test('steering annotations limit price and instance families', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-dear') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-dear', { pricePerHour: 0.9 }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-t3') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-t3', { instanceTypes: ['m7i.large', 't3.large'], pricePerHour: 0.1 }) });
  h.view.apply({ kind: 'node-upserted', node: node('real-c7i', { labels: { 'node.kubernetes.io/instance-type': 'c7i.large' } }) });
  const steered = pod({
    annotations: { [podAnnotations.maxPricePerHour]: '0.5', [podAnnotations.excludedInstanceFamilies]: 't3,c7i' },
  });
  const result = await filter(h, extenderArgs(steered, ['launchable-dear', 'launchable-t3', 'real-c7i']));
  t.same(result.NodeNames, []);
  t.match(result.FailedAndUnresolvableNodes, {
    'launchable-dear': /planned price 0.9\/h exceeds the pod's maximum 0.5\/h/,
    'launchable-t3': /may pick t3.large: instance family t3 is excluded/,
    'real-c7i': /instance family c7i is excluded/,
  });
});

void t.test('the full-node form gets the passing Node objects back whole', async (t) => {
  const h = harness();
  const open = { ...node('open'), status: { ...node('open').status, images: [{ names: ['x'], sizeBytes: 1 }] } };
  h.view.apply({ kind: 'node-upserted', node: open });
  h.view.apply({ kind: 'node-upserted', node: node('cordoned', { unschedulable: true }) });
  const result = await filter(h, { Pod: pod(), Nodes: { items: [open, node('cordoned', { unschedulable: true })] }, NodeNames: null });
  t.equal(result.NodeNames, null);
  t.same(result.Nodes, { items: [open] });
  t.match(result.FailedAndUnresolvableNodes, { cordoned: /cordoned/ });
});

void t.test('a request with no candidates answers with empty lists', async (t) => {
  const h = harness();
  const result = await filter(h, { Pod: pod(), NodeNames: [] });
  t.same(result, { Nodes: null, NodeNames: [], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
});

void t.test('a DaemonSet pod never passes a virtual node', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a') });
  const daemon = pod({ name: 'agent-x' });
  const owned = { ...daemon, metadata: { ...daemon.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'u', controller: true }] } };
  const result = await filter(h, extenderArgs(owned, ['launchable-a']));
  t.match(result.FailedAndUnresolvableNodes, { 'launchable-a': /daemonset pods never trigger a launch/ });
});

void t.test('a real node holding pods kube-scheduler has not seen yet refuses a pod that no longer fits', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('ip-real', { cpu: '2', memory: '4Gi' }) });
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/big'], room: { cpu: '2', memory: '4Gi', pods: '10' } }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'big', cpu: '1500m', memory: '1Gi' }) });
  const bind = h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'big', PodNamespace: 'default', PodUID: 'uid-big', Node: 'launchable-a' } });
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  h.materializer.complete('ip-real');
  t.equal((await bind).json<{ Error: string }>().Error, '', 'the planned pod was bound to the node it became');
  // The plan is done and withdrawn; kube-scheduler's cache still shows ip-real empty and offers it for the next pod.
  h.view.apply({ kind: 'plan-deleted', nodeName: 'launchable-a' });
  h.view.apply({ kind: 'node-deleted', name: 'launchable-a' });
  const next = await filter(h, extenderArgs(pod({ name: 'next', cpu: '1', memory: '1Gi' }), ['ip-real']));
  t.equal(next.FailedNodes['ip-real'], 'not enough room beside the pods bound and binding to it: cpu 1 wanted, 500m left');
  // Once the watch shows the pod on the node, the model still counts it, and a pod that fits passes.
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'big', cpu: '1500m', memory: '1Gi', nodeName: 'ip-real', phase: 'Running' }) });
  t.match((await filter(h, extenderArgs(pod({ name: 'next', cpu: '1', memory: '1Gi' }), ['ip-real']))).FailedNodes, { 'ip-real': /cpu 1 wanted, 500m left/ });
  t.same((await filter(h, extenderArgs(pod({ name: 'small', cpu: '400m', memory: '1Gi' }), ['ip-real']))).NodeNames, ['ip-real']);
});

void t.test('a pod offered its own virtual node and others passes only its own, so kube-scheduler needs no scoring', async (t) => {
  const h = harness();
  for (const name of ['launchable-a', 'launchable-b']) h.view.apply({ kind: 'node-upserted', node: virtualNode(name) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/other'], room: { cpu: '4', memory: '8Gi', pods: '10' } }) });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-b', { assignedPods: ['default/web-0'], room: { cpu: '4', memory: '8Gi', pods: '10' } }) });
  const result = await filter(h, extenderArgs(pod(), ['launchable-a', 'launchable-b']));
  t.same(result.NodeNames, ['launchable-b']);
  t.match(result.FailedAndUnresolvableNodes['launchable-a'], /planned on virtual node launchable-b/);
  // Without its own among the candidates (kube-scheduler found it full), another plan's spare room still takes it.
  const elsewhere = await filter(h, extenderArgs(pod(), ['launchable-a']));
  t.same(elsewhere.NodeNames, ['launchable-a']);
});
