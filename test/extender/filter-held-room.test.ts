import t from 'tap';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { Pod } from '../../domain/core/pod.js';
import { extenderArgs, harness, node, plan, pod, virtualNode } from './builders.js';

interface FilterResult { NodeNames: string[] | null; FailedNodes: Record<string, string> }

async function filter(h: ReturnType<typeof harness>, payload: unknown): Promise<FilterResult> {
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: payload as object });
  if (response.statusCode !== 200) throw new Error(`filter answered ${response.statusCode}: ${response.body}`);
  return response.json<FilterResult>();
}

const cni: DaemonSet = {
  metadata: { name: 'cni', namespace: 'kube-system', uid: 'ds-cni' },
  spec: { template: { metadata: { labels: { app: 'cni' } }, spec: { containers: [{ name: 'cni', resources: { requests: { cpu: '300m', memory: '256Mi' } } }] } } },
};

function cniPod(nodeName?: string): Pod {
  const base = pod({ name: 'cni-x', namespace: 'kube-system', cpu: '300m', memory: '256Mi', ...(nodeName === undefined ? {} : { nodeName, phase: 'Running' }) });
  return { ...base, metadata: { ...base.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'cni', uid: 'ds-cni', controller: true }] } };
}

const poolNode = (name: string): ReturnType<typeof node> => node(name, { cpu: '1', memory: '4Gi', pods: '10', labels: { 'karpenter.sh/nodepool': 'default' } });

void t.test("a NodePool's new node keeps its DaemonSet pods' room from every other pod until they come", async (t) => {
  const h = harness();
  h.view.upsertObject('daemonset', cni);
  h.view.apply({ kind: 'node-upserted', node: poolNode('real-a') });
  // kube-scheduler sees 1 CPU free; 300m of it are the CNI pod's, which the DaemonSet controller has not made yet.
  const large = await filter(h, extenderArgs(pod({ name: 'web-1', cpu: '800m' }), ['real-a']));
  t.same(large.NodeNames, []);
  t.equal(large.FailedNodes['real-a'], 'not enough room beside the pods bound and binding to it, on their way to it and its DaemonSet pods to come: cpu 800m wanted, 700m left');
  t.same((await filter(h, extenderArgs(pod({ name: 'web-2', cpu: '700m' }), ['real-a']))).NodeNames, ['real-a'], 'a pod that leaves the room passes');
  t.same((await filter(h, extenderArgs(cniPod(), ['real-a']))).NodeNames, ['real-a'], 'the daemon pod takes the room kept for it');
  h.view.apply({ kind: 'pod-upserted', pod: cniPod('real-a') });
  h.view.forgetCandidates('default/web-2');
  t.same((await filter(h, extenderArgs(pod({ name: 'web-1', cpu: '700m' }), ['real-a']))).NodeNames, ['real-a'], 'once the daemon runs there (and web-2 went elsewhere), the rest is free');
  t.equal(h.view.node('real-a')?.daemonReserved, undefined);
});

void t.test('a pod the filter let kube-scheduler place where the model holds room it does not know of holds its room there until its bind arrives', async (t) => {
  // kube-scheduler counts a pod on its chosen node at once and binds it later; its next pod's filter call can come
  // first, and kube-scheduler's own check does not know the daemons' room (nor pods binding through a virtual node).
  const h = harness();
  h.view.upsertObject('daemonset', cni);
  h.view.apply({ kind: 'node-upserted', node: poolNode('real-a') });
  h.view.apply({ kind: 'node-upserted', node: poolNode('real-b') });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'first', cpu: '400m' }) });
  t.same((await filter(h, extenderArgs(pod({ name: 'first', cpu: '400m' }), ['real-a', 'real-b']))).NodeNames, ['real-a', 'real-b']);
  const second = await filter(h, extenderArgs(pod({ name: 'second', cpu: '400m' }), ['real-a', 'real-b']));
  t.same(second.NodeNames, [], 'either node may be the one the first pod is going to');
  t.match(second.FailedNodes['real-a'], /on their way to it.*cpu 400m wanted, 300m left/);
  t.same((await filter(h, extenderArgs(pod({ name: 'first', cpu: '400m' }), ['real-a', 'real-b']))).NodeNames, ['real-a', 'real-b'], 'a pod filtered again does not count against itself');
  const bound = await h.app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'first', PodNamespace: 'default', PodUID: 'uid-first', Node: 'real-a' } });
  t.equal(bound.json<{ Error: string }>().Error, '');
  t.same((await filter(h, extenderArgs(pod({ name: 'second', cpu: '400m' }), ['real-a', 'real-b']))).NodeNames, ['real-b'], 'once it binds, it holds only the node it went to');
  t.same(h.view.reservedOn('real-a'), { cpu: 400, memory: 536_870_912, pods: 1 }, 'until the watch shows it bound there');
});

void t.test('where kube-scheduler knows every pod on its way, its own check is enough and nothing is held', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: poolNode('real-a') });
  t.same((await filter(h, extenderArgs(pod({ name: 'first', cpu: '600m' }), ['real-a']))).NodeNames, ['real-a']);
  t.equal(h.view.tentativeOn('real-a'), undefined, 'no daemon room and no pod binding there through a virtual node');
});

void t.test('the daemon room is kept on a launched node beside the pods still coming from its plan', async (t) => {
  const h = harness();
  h.view.upsertObject('daemonset', cni);
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'node-upserted', node: poolNode('real-a') });
  // The plan's room already left 300m for the daemon: 700m, of which the planned pod takes 400m.
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/planned'], room: { cpu: '700m', memory: '3Gi', pods: '9' }, materializedNode: 'real-a' }) });
  h.view.apply({ kind: 'pod-upserted', pod: pod({ name: 'planned', cpu: '400m' }) });
  const other = await filter(h, extenderArgs(pod({ name: 'other', cpu: '400m' }), ['real-a']));
  t.same(other.NodeNames, []);
  t.match(other.FailedNodes['real-a'], /DaemonSet pods to come: cpu 400m wanted, 300m left/);
  t.same((await filter(h, extenderArgs(cniPod(), ['real-a']))).NodeNames, ['real-a'], 'the daemon pod still fits beside the planned pod');
});

void t.test('only daemons that would run on the node are kept, and none on nodes outside a NodePool', (t) => {
  const h = harness();
  const armOnly: DaemonSet = { metadata: { name: 'arm-agent', namespace: 'kube-system', uid: 'ds-arm' }, spec: { template: { spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' }, containers: [{ name: 'a', resources: { requests: { cpu: '500m' } } }] } } } };
  const tainted: DaemonSet = { metadata: { name: 'gpu-agent', namespace: 'kube-system', uid: 'ds-gpu' }, spec: { template: { spec: { containers: [{ name: 'g', resources: { requests: { cpu: '500m' } } }] } } } };
  h.view.upsertObject('daemonset', armOnly);
  h.view.upsertObject('daemonset', tainted);
  h.view.apply({ kind: 'node-upserted', node: node('amd', { cpu: '1', labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/arch': 'amd64' }, taints: [{ key: 'gpu', effect: 'NoSchedule' }] }) });
  h.view.apply({ kind: 'node-upserted', node: node('static', { cpu: '1', labels: { 'kubernetes.io/arch': 'arm64' } }) });
  t.equal(h.view.node('amd')?.daemonReserved, undefined, 'the arm64 daemon does not match, and the other does not tolerate the taint');
  t.equal(h.view.node('static')?.daemonReserved, undefined, 'a node no NodePool owns keeps no daemon room');
  h.view.apply({ kind: 'node-upserted', node: node('arm', { cpu: '1', labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/arch': 'arm64' } }) });
  t.same(h.view.node('arm')?.daemonReserved, { cpu: 1000, pods: 2 }, 'both daemons run on an arm64 node without taints');
  h.view.removeObject('daemonset', tainted);
  t.same(h.view.node('arm')?.daemonReserved, { cpu: 500, pods: 1 }, 'a deleted DaemonSet frees its room at once');
  t.end();
});

void t.test('a daemon pod passes its own node while the node is disrupted, cordoned or being deleted, where other pods are refused', async (t) => {
  const h = harness();
  h.view.upsertObject('daemonset', cni);
  const closed: Record<string, Parameters<typeof node>[1]> = { disrupted: { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }, cordoned: { unschedulable: true }, deleting: { deleting: true } };
  for (const [name, how] of Object.entries(closed)) h.view.apply({ kind: 'node-upserted', node: node(name, { cpu: '1', memory: '4Gi', pods: '10', labels: { 'karpenter.sh/nodepool': 'default' }, ...how }) });
  const names = Object.keys(closed);
  t.same((await filter(h, extenderArgs(cniPod(), names))).NodeNames, names, 'the DaemonSet pod is let through to each');
  t.same((await filter(h, extenderArgs(pod({ name: 'web-1', cpu: '100m' }), names))).NodeNames, [], 'a workload pod to none');
});
