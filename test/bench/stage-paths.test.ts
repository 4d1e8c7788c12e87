import t from 'tap';
import { karpenterColumns, karpenterPaths, nodesmithColumns, nodesmithLogTimes, nodesmithPaths, timelineReport } from './stage-paths.js';
import type { ClusterTrace, PodTrace } from './stage-watch.js';

const trace = (pods: PodTrace[], over: Partial<ClusterTrace> = {}): ClusterTrace => ({
  pods: new Map(pods.map((p) => [`uid-${p.key}`, p])), nodesMs: new Map(), nominated: new Map(), nodeClaimsMs: new Map(), nodeClaimOfNode: new Map(), ...over,
});

const completed = (time: number, responseTime: number, res: Record<string, unknown>): Record<string, unknown> => ({ time, msg: 'request completed', responseTime, res: { statusCode: 200, ...res } });

void t.test('the log gives each pod\'s first filter and first bind to a virtual node at their arrival, and each launch', (t) => {
  const times = nodesmithLogTimes([
    completed(900, 1, { pod: 'default/a' }),
    completed(1_100, 10, { pod: 'default/a' }),
    completed(1_300, 5, { pod: 'default/a' }),
    completed(1_400, 2, {}),
    completed(2_000, 300, { pod: 'default/a', node: 'ip-10-0-0-1.ec2.internal' }),
    completed(4_000, 1_500, { pod: 'default/a', node: 'launchable-default-x1' }),
    completed(4_200, 100, { pod: 'default/a', node: 'launchable-default-x1' }),
    { time: 3_000, msg: 'launched nodeclaim', nodeClaim: 'default-x1' },
    { time: 3_500, msg: 'launched nodeclaim', nodeClaim: 'default-x1' },
  ], 1_000);
  t.same([...times.firstFilterMs], [['default/a', 1_090]], 'before the start is skipped; the line\'s time less the call\'s ms');
  t.same([...times.virtualBind], [['default/a', { atMs: 2_500, node: 'launchable-default-x1' }]], 'a bind to a real node is no bind to a virtual one; the first call counts');
  t.same([...times.launchedMs], [['default-x1', 3_000]]);
  t.end();
});

void t.test('nodesmith\'s path joins the bind\'s virtual node, its NodeClaim\'s launch and the real node the pod was bound to', (t) => {
  const pod: PodTrace = { key: 'default/a', createdMs: 1_000, unschedulableMs: 1_200, boundMs: 5_000, nodeName: 'ip-1', runningMs: 6_000 };
  const cluster = trace([pod], {
    nodesMs: new Map([['launchable-default-x1', 2_100], ['launchable-default-x2', 2_200], ['ip-1', 4_500]]),
    nominated: new Map([['default/a', { atMs: 2_300, message: 'planned on virtual node launchable-default-x2 (NodePool default: c6g.large; $0.0680/h)' }]]),
  });
  const log = { firstFilterMs: new Map([['default/a', 1_100]]), virtualBind: new Map([['default/a', { atMs: 3_000, node: 'launchable-default-x1' }]]), launchedMs: new Map([['default-x1', 4_000], ['default-x2', 9_000]]) };
  t.same(nodesmithPaths(cluster, log), [{ createdMs: 1_000, stages: { created: 1_000, filter: 1_100, unschedulable: 1_200, planned: 2_300, published: 2_100, virtualBind: 3_000, launched: 4_000, node: 4_500, bound: 5_000, running: 6_000 } }], 'the node of the bind, not of the Event, when they differ');
  const unbound = nodesmithPaths(cluster, { ...log, virtualBind: new Map() })[0]?.stages;
  t.equal(unbound?.['published'], 2_200, 'without a bind call, the Event\'s virtual node');
  t.equal(unbound?.['launched'], 9_000);
  t.end();
});

void t.test('Karpenter\'s path finds the NodeClaim its Nominated Event names, else the one its Node came from', (t) => {
  const cluster = trace([
    { key: 'default/b', createdMs: 0, unschedulableMs: 300, boundMs: 8_000, nodeName: 'ip-2', runningMs: 9_000 },
    { key: 'default/c', createdMs: 50 },
    { key: 'default/d', createdMs: 60, boundMs: 8_100, nodeName: 'ip-3' },
  ], {
    nominated: new Map([['default/b', { atMs: 1_000, message: 'Pod should schedule on: nodeclaim/default-8wq87' }]]),
    nodeClaimsMs: new Map([['default-8wq87', 1_100], ['default-zz', 1_300]]), nodesMs: new Map([['ip-2', 7_000], ['ip-3', 7_100]]),
    nodeClaimOfNode: new Map([['ip-2', 'default-zz'], ['ip-3', 'default-zz']]),
  });
  t.same(karpenterPaths(cluster).map((p) => p.stages), [
    { created: 0, unschedulable: 300, nominated: 1_000, nodeClaim: 1_100, node: 7_000, bound: 8_000, running: 9_000 },
    { created: 50, unschedulable: undefined, nominated: undefined, nodeClaim: undefined, node: undefined, bound: undefined, running: undefined },
    { created: 60, unschedulable: undefined, nominated: undefined, nodeClaim: 1_300, node: 7_100, bound: 8_100, running: undefined },
  ]);
  const report = timelineReport('karpenter: where every second goes', cluster, karpenterPaths(cluster), karpenterColumns);
  t.match(report, /^karpenter: where every second goes\n {2}stage/);
  t.match(report, /\n {2}created \(seen by the bench\)\s+0\.00\s+0\.00\s+3\n/);
  t.match(report, /\n {2}its NodeClaim created \(Event's, else its Node's\)\s+1\.10\s+1\.24\s+2\n/);
  t.match(report, /\n {2}kwok bound → Running: never a backlog/);
  t.equal(nodesmithColumns.length, 9, 'nodesmith\'s nine stages after creation');
  t.end();
});
