import t from 'tap';
import type { Node } from '../../domain/core/node.js';
import { launchableLabel } from '../../domain/product-keys.js';
import { buildTopView, type PriceOf, type TopRow } from '../../cli/top-model.js';
import { age, bar, renderTop, sortRows } from '../../cli/top-render.js';
import { applyKey } from '../../cli/top-screen.js';
import { condition, iso, nodeClaim, pod } from '../fakes/builders.js';
import { stateWith } from '../fakes/cluster-state.js';
import { nodePool, pendingPod } from '../fakes/provisioning-builders.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const prices: Record<string, number> = { 'm5.large/on-demand': 0.096, 'c5.xlarge/spot': 0.068 };
const priceOf: PriceOf = (type, _zone, capacity) => prices[`${type}/${capacity}`];

function realNode(name: string, o: { type: string; capacity: string; pool: string; cpu: string; memory: string; ageS: number; extra?: Partial<Node['metadata']> }): Node {
  return {
    metadata: { name, creationTimestamp: iso(now - o.ageS * 1000), labels: { 'karpenter.sh/nodepool': o.pool, 'node.kubernetes.io/instance-type': o.type, 'karpenter.sh/capacity-type': o.capacity, 'topology.kubernetes.io/zone': 'us-west-2a' }, ...o.extra },
    spec: { providerID: `aws:///us-west-2a/i-${name}` },
    status: { allocatable: { cpu: o.cpu, memory: o.memory, pods: '29' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function busyPod(name: string, nodeName: string, cpu: string, memory: string): ReturnType<typeof pod> {
  const p = pod({ name, nodeName, phase: 'Running' });
  return { ...p, spec: { ...p.spec, containers: [{ name: 'app', resources: { requests: { cpu, memory } } }] } };
}

function cluster(): ReturnType<typeof stateWith> {
  const virtual: Node = { metadata: { name: 'launchable-spot-1', creationTimestamp: iso(now - 5000), labels: { [launchableLabel]: 'true', 'karpenter.sh/nodepool': 'spot' } }, spec: {}, status: { allocatable: { cpu: '3920m', memory: '7Gi' } } };
  return stateWith({
    nodePools: [nodePool('default'), nodePool('spot')],
    nodes: [
      realNode('web-1', { type: 'm5.large', capacity: 'on-demand', pool: 'default', cpu: '2', memory: '8Gi', ageS: 7200 }),
      realNode('old-1', { type: 'm5.large', capacity: 'on-demand', pool: 'default', cpu: '2', memory: '8Gi', ageS: 300 }),
      virtual,
    ],
    nodeClaims: [
      nodeClaim({ name: 'default-a', nodeName: 'web-1', createdAtMs: now - 7200_000, conditions: [condition('Initialized', 'True', now)] }),
      nodeClaim({ name: 'default-b', nodeName: 'old-1', createdAtMs: now - 300_000, conditions: [condition('Initialized', 'True', now), condition('Drifted', 'True', now)] }),
    ],
    plans: [{ nodeName: 'launchable-spot-1', nodePool: 'spot', instanceTypes: ['c5.xlarge', 'c6i.xlarge'], pricePerHour: 0.068, capacityType: 'spot', assignedPods: ['default/batch'], room: {} }],
    pods: [busyPod('api', 'web-1', '1500m', '2Gi'), pendingPod('batch', { cpu: '2' }), { ...pendingPod('huge'), status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/812 instance types: 812 too little memory' }] } }],
  });
}

void t.test('the view holds every real node and every plan not yet launched, with requests, prices and states', (t) => {
  const view = buildTopView(cluster(), priceOf, now);
  const web = view.rows.find((r) => r.name === 'web-1');
  t.match(web, { nodePool: 'default', instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-west-2a', pods: 1, pricePerHour: 0.096, state: 'ready', cpu: { requested: 1500, allocatable: 2000 } });
  t.equal(view.rows.find((r) => r.name === 'old-1')?.state, 'drifted', "a NodeClaim's Drifted condition is its state");
  t.match(view.rows.find((r) => r.name === 'launchable-spot-1'), { state: 'planned', instanceType: 'c5.xlarge +1', capacityType: 'spot', pricePerHour: 0.068, pods: 1, cpu: { requested: 2000, allocatable: 3920 } });
  t.match(view.cluster, { nodes: 2, planned: 1, pendingPods: 2 });
  t.equal(view.cluster.pricePerHour.toFixed(3), '0.260', 'cluster $/h includes the plans');
  t.match(view.pools.find((p) => p.name === 'spot'), { nodes: 0, planned: 1, pendingPods: 1 });
  t.match(view.pending.find((p) => p.pod === 'default/batch')?.why, /planned on launchable-spot-1 \(c5.xlarge, c6i.xlarge\)/);
  t.equal(view.pending.find((p) => p.pod === 'default/huge')?.why, '0/812 instance types: 812 too little memory', "kube-scheduler's or nodesmith's reason");
  t.end();
});

void t.test('a frame shows bars, totals and the pending reasons, cut to the width', (t) => {
  const lines = renderTop(buildTopView(cluster(), priceOf, now), { width: 200, sort: 'cost', interactive: false, nowMs: now });
  const text = lines.join('\n');
  t.match(lines[0], /^nodesmith top · 2 nodes, 1 planned · 2 pods pending · \$0\.260\/h · cpu 38% · memory 13% · 12:00:00 UTC$/);
  t.match(text, /^web-1\s+m5\.large\s+on-demand\s+us-west-2a\s+default\s+2h\s+██████░░\s+75%\s+██░░░░░░\s+25%\s+1\s+0\.096\s+ready$/m);
  t.match(text, /^launchable-spot-1\s+c5\.xlarge \+1\s+spot\s+flexible|^launchable-spot-1\s+c5\.xlarge \+1\s+spot\s+\S+\s+spot\s+5s/m);
  t.match(text, /^PENDING PODS \(2\)$/m);
  t.notOk(text.includes('\u001b['), 'no escape codes outside a terminal');
  t.ok(renderTop(buildTopView(cluster(), priceOf, now), { width: 40, sort: 'cost', interactive: false, nowMs: now }).every((l) => l.length <= 40));
  t.end();
});

void t.test('the nodepool filter, sorting and a small terminal keep the frame within its rows', (t) => {
  const view = buildTopView(cluster(), priceOf, now);
  const onlySpot = renderTop(view, { width: 200, sort: 'cost', nodePool: 'spot', interactive: true, nowMs: now }).join('\n');
  t.notMatch(onlySpot, /^web-1/m);
  t.match(onlySpot, /launchable-spot-1/);
  t.ok(onlySpot.includes('\u001b[36mplanned\u001b[0m'), 'states are coloured in a terminal');
  const rows: TopRow[] = sortRows(view.rows, 'age');
  t.same(rows.map((r) => r.name), ['web-1', 'old-1', 'launchable-spot-1'], 'oldest first');
  t.same(sortRows(view.rows, 'cpu').map((r) => r.name)[0], 'web-1');
  t.ok(renderTop(view, { width: 100, height: 14, sort: 'name', interactive: true, nowMs: now }).length <= 14);
  t.end();
});

void t.test('keys cycle the sort and the nodepool filter, scroll, and quit', (t) => {
  const state = { sort: 'cost' as const as 'cost' | 'cpu' | 'memory' | 'age' | 'name', nodePool: undefined as string | undefined, scroll: 0 };
  t.ok(applyKey('s', state, ['default', 'spot'], 10));
  t.equal(state.sort, 'cpu');
  applyKey('p', state, ['default', 'spot'], 10);
  applyKey('p', state, ['default', 'spot'], 10);
  t.equal(state.nodePool, 'spot');
  applyKey('p', state, ['default', 'spot'], 10);
  t.equal(state.nodePool, undefined, 'after the last pool, all again');
  applyKey('\u001b[B', state, [], 10);
  applyKey('\u001b[6~', state, [], 10);
  t.equal(state.scroll, 11);
  t.notOk(applyKey('q', state, [], 10));
  t.notOk(applyKey('\u0003', state, [], 10), 'Ctrl-C quits in raw mode');
  t.end();
});

void t.test('bars and ages read like kubectl top and kubectl get', (t) => {
  t.equal(bar({ requested: 1, allocatable: 4 }), '██░░░░░░  25%');
  t.equal(bar({ requested: 0, allocatable: 0 }), '░░░░░░░░   0%');
  t.same([age(45_000), age(600_000), age(5 * 3_600_000), age(3 * 86_400_000)], ['45s', '10m', '5h', '3d']);
  t.end();
});

void t.test('a thousand nodes with thirty pods each build and render one frame', (t) => {
  const nodes = Array.from({ length: 1000 }, (_, i) => realNode(`n-${String(i)}`, { type: 'm5.large', capacity: 'on-demand', pool: i % 2 === 0 ? 'default' : 'spot', cpu: '2', memory: '8Gi', ageS: i }));
  const pods = nodes.flatMap((n, i) => Array.from({ length: 30 }, (_, j) => busyPod(`p-${String(i)}-${String(j)}`, n.metadata.name ?? '', '50m', '64Mi')));
  const state = stateWith({ nodes, pods, nodePools: [nodePool('default'), nodePool('spot')] });
  const started = performance.now();
  const lines = renderTop(buildTopView(state, priceOf, now), { width: 160, height: 50, sort: 'cpu', interactive: true, nowMs: now });
  t.comment(`1,000 nodes, 30,000 pods: one frame in ${(performance.now() - started).toFixed(0)} ms`);
  t.ok(lines.length <= 50);
  t.match(lines.join('\n'), /… 9\d\d more nodes/);
  t.end();
});

void t.test('the title counts in words: one node, one pod', (t) => {
  const state = stateWith({ nodePools: [nodePool('default')], nodes: [realNode('only', { type: 'm5.large', capacity: 'on-demand', pool: 'default', cpu: '2', memory: '8Gi', ageS: 60 })], pods: [pendingPod('waiting')] });
  const [title] = renderTop(buildTopView(state, priceOf, now), { width: 200, sort: 'name', interactive: false, nowMs: now });
  t.match(title, /^nodesmith top · 1 node, 0 planned · 1 pod pending · /);
  t.end();
});

void t.test('room a ProvisioningRequest booked shows under its node, less what its pods that came took', (t) => {
  const state = cluster();
  const booked = JSON.stringify({ 'web-1': [{ requests: { cpu: 250, memory: 268435456, pods: 1 }, count: 2 }] });
  state.upsertObject('provisioningrequest', {
    metadata: { name: 'train', namespace: 'batch' }, spec: { provisioningClassName: 'best-effort-atomic-scale-up.autoscaling.x-k8s.io', podSets: [{ podTemplateRef: { name: 'w' }, count: 2 }] },
    status: { conditions: [condition('Provisioned', 'True', now)], provisioningClassDetails: { 'nodesmith.io/booked-nodes': booked } },
  });
  const came = busyPod('train-0', 'web-1', '250m', '256Mi');
  state.upsertPod({ ...came, metadata: { ...came.metadata, namespace: 'batch', annotations: { 'autoscaling.x-k8s.io/consume-provisioning-request': 'train' } } });
  const view = buildTopView(state, priceOf, now);
  t.same(view.booked, [{ node: 'web-1', request: 'batch/train', cpu: 250, memory: 268435456, pods: 1 }]);
  const lines = renderTop(view, { width: 200, sort: 'name', interactive: false, nowMs: now });
  t.ok(lines.includes('BOOKED FOR PROVISIONING REQUESTS (1)'));
  t.ok(lines.some((l) => l.startsWith('  web-1  batch/train  1 pods\' room held: cpu 250m, memory 256Mi')), lines.join('\n'));
  t.end();
});
