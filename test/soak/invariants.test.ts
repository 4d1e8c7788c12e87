import t from 'tap';
import type { ClusterSnapshot, PodView } from './cluster-snapshot.js';
import { Invariants } from './invariants.js';
import type { Graces } from './violation.js';

const graces: Graces = { podMissingMs: 100, fleetMs: 100, taintMs: 100, runawayMs: 100, runawayMargin: 1, unschedulableMs: 100 };
const pod = (name: string, app: string | undefined, over: Partial<PodView> = {}): PodView => ({ key: `default/${name}`, app, node: 'i-1', phase: 'Running', deleting: false, cpu: 250, memory: 1, unschedulableSinceMs: undefined, ...over });
/** A pod kube-scheduler has found no node for since `sinceMs`. */
const unschedulable = (name: string, app: string | undefined, sinceMs: number): PodView => pod(name, app, { phase: 'Pending', node: undefined, unschedulableSinceMs: sinceMs });
const claim = (name: string, instanceId: string | undefined, deleting = false): ClusterSnapshot['claims'][number] => ({ name, nodePool: 'soak', nodeName: instanceId, instanceId, deleting, conditions: [] });
const instance = (id: string, claimName: string): ClusterSnapshot['instances'][number] => ({ id, type: 'm5.large', zone: 'us-east-1a', lifecycle: 'on-demand', state: 'running', tags: { 'karpenter.sh/nodeclaim': claimName } });

function snapshot(atMs: number, over: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    atMs, pods: [pod('web-1', 'web'), pod('web-2', 'web')], nodes: [], claims: [claim('soak-a', 'i-1')], instances: [instance('i-1', 'soak-a')],
    deployments: [{ name: 'web', replicas: 2 }], pdbs: [], overcommitted: [], daemonsWithoutRoom: [], ...over,
  };
}

void t.test('a Deployment short of a pod is a violation once the grace has passed, and only once', (t) => {
  const inv = new Invariants(graces, 0);
  const short = { pods: [pod('web-1', 'web'), pod('web-2', 'web', { phase: 'Pending', node: undefined })] };
  t.same(inv.check(snapshot(1000, short)), [], 'not at first');
  const [v, ...more] = inv.check(snapshot(1200, short));
  t.equal(v?.invariant, 'deployment-pod-missing');
  t.match(v?.objects, ['deployment/web', 'pod/default/web-2(Pending)']);
  t.equal(v?.atMs, 1200);
  t.same(more, []);
  t.same(inv.check(snapshot(1300, short)), [], 'not again in the same episode');
  t.end();
});

void t.test("the harness's own scale-up starts the clock again", (t) => {
  const inv = new Invariants(graces, 0);
  const short = { pods: [pod('web-1', 'web')] };
  inv.check(snapshot(1000, short));
  inv.noteChange('web', 1150);
  t.same(inv.check(snapshot(1200, short)), []);
  t.equal(inv.check(snapshot(1300, short))[0]?.invariant, 'deployment-pod-missing');
  t.end();
});

void t.test('a PDB counts only after its app had every pod, and then at once', (t) => {
  const inv = new Invariants({ ...graces, podMissingMs: 10_000 }, 0);
  const pdbs = [{ name: 'web', app: 'web', maxUnavailable: 1 }];
  const deployments = [{ name: 'web', replicas: 3 }];
  const one = [pod('web-1', 'web'), pod('web-2', 'web', { deleting: true }), pod('web-3', 'web', { phase: 'Pending', node: undefined })];
  t.same(inv.check(snapshot(1000, { pdbs, deployments, pods: one })), [], 'scaling up is not a breach');
  inv.check(snapshot(1100, { pdbs, deployments, pods: [pod('web-1', 'web'), pod('web-2', 'web'), pod('web-3', 'web')] }));
  const [v] = inv.check(snapshot(1200, { pdbs, deployments, pods: one }));
  t.equal(v?.invariant, 'pdb-violated');
  t.equal(v?.message, '1 of 3 pods serving, maxUnavailable 1');
  t.end();
});

void t.test('an instance no NodeClaim holds and a NodeClaim whose instance is gone count after the grace', (t) => {
  const inv = new Invariants(graces, 0);
  const s = { claims: [claim('soak-a', 'i-1'), claim('soak-b', 'i-9'), claim('soak-c', undefined)], instances: [instance('i-1', 'soak-a'), instance('i-2', 'gone'), instance('i-3', 'soak-c')] };
  t.same(inv.check(snapshot(1000, s)), []);
  const found = inv.check(snapshot(1200, s)).map((v) => `${v.invariant} ${v.objects[0] ?? ''}`);
  t.same(found.sort(), ['instance-without-nodeclaim instance/i-2', 'nodeclaim-without-instance nodeclaim/soak-b'], 'i-3 is held by its tag while its NodeClaim has no providerID yet');
  t.end();
});

void t.test('a tainted node counts only while its NodeClaim is not being deleted', (t) => {
  const inv = new Invariants(graces, 0);
  const nodes = [{ name: 'i-1', virtual: false, disruptedTaint: true, unschedulable: false, ready: true }, { name: 'i-2', virtual: false, disruptedTaint: false, unschedulable: true, ready: true }];
  const claims = [claim('soak-a', 'i-1', true), claim('soak-b', 'i-2')];
  const instances = [instance('i-1', 'soak-a'), instance('i-2', 'soak-b')];
  inv.check(snapshot(1000, { nodes, claims, instances }));
  const found = inv.check(snapshot(1200, { nodes, claims, instances }));
  t.same(found.map((v) => `${v.invariant} ${v.message}`), ['node-left-tainted cordoned for 0 s with no NodeClaim deletion']);
  t.end();
});

void t.test('more NodeClaims than pods plus the margin, for longer than the grace, is a runaway', (t) => {
  const inv = new Invariants(graces, 0);
  const claims = ['a', 'b', 'c', 'd'].map((n) => claim(`soak-${n}`, `i-${n}`));
  const instances = ['a', 'b', 'c', 'd'].map((n) => instance(`i-${n}`, `soak-${n}`));
  inv.check(snapshot(1000, { claims, instances }));
  const [v] = inv.check(snapshot(1200, { claims, instances }));
  t.equal(v?.invariant, 'runaway-scale-up');
  t.equal(v?.message, '4 NodeClaims for 2 pods (margin 1) for 0 s');
  t.end();
});

void t.test('a node over its allocatable is reported when seen, once', (t) => {
  const inv = new Invariants(graces, 0);
  const overcommitted = ['i-1: cpu 3 requested, 2 allocatable'];
  t.same(inv.check(snapshot(1000, { overcommitted })).map((v) => v.objects), [['node/i-1']]);
  t.same(inv.check(snapshot(1100, { overcommitted })), []);
  t.end();
});

void t.test('pods waiting on a pool a fault keeps from becoming Ready are exempt, and only while the fault lasts', (t) => {
  const inv = new Invariants(graces, 0);
  const waiting = { deployments: [{ name: 'web', replicas: 2 }, { name: 'never-ready', replicas: 2 }], pods: [pod('web-1', 'web'), pod('web-2', 'web'), pod('nr-1', 'never-ready', { phase: 'Pending', node: undefined }), pod('nr-2', 'never-ready', { phase: 'Pending', node: undefined })] };
  inv.breakPool('never-ready', 'never-ready');
  inv.check(snapshot(1000, waiting));
  t.same(inv.check(snapshot(1200, waiting)), [], 'its Deployment is not short while its nodes are broken on purpose');
  inv.mendPool('never-ready');
  inv.check(snapshot(1300, waiting));
  t.equal(inv.check(snapshot(1500, waiting))[0]?.invariant, 'deployment-pod-missing', 'once mended, the same shortfall counts');
  t.end();
});

void t.test('a pool whose nodes never become Ready growing beyond one NodeClaim per waiting pod is a runaway', (t) => {
  const inv = new Invariants({ ...graces, runawayMargin: 10 }, 0);
  inv.breakPool('never-ready', 'never-ready');
  const brokenClaim = (name: string): ClusterSnapshot['claims'][number] => ({ ...claim(name, undefined), nodePool: 'never-ready' });
  const pods = [pod('web-1', 'web'), pod('web-2', 'web'), pod('nr-1', 'never-ready', { phase: 'Pending', node: undefined })];
  const one = { pods, claims: [claim('soak-a', 'i-1'), brokenClaim('nr-a')] };
  inv.check(snapshot(1000, one));
  t.same(inv.check(snapshot(1200, one)), [], 'one NodeClaim for its one pod is what it needs');
  const three = { pods, claims: [claim('soak-a', 'i-1'), brokenClaim('nr-a'), brokenClaim('nr-b'), brokenClaim('nr-c')] };
  inv.check(snapshot(1300, three));
  const [v] = inv.check(snapshot(1500, three));
  t.equal(v?.invariant, 'runaway-scale-up');
  t.match(v?.objects, ['nodepool/never-ready', 'nodeclaim/nr-a', 'nodeclaim/nr-b', 'nodeclaim/nr-c']);
  t.end();
});

void t.test('a DaemonSet pod without room on its node is reported when seen, once, and again if it comes back', (t) => {
  const inv = new Invariants(graces, 0);
  const daemonsWithoutRoom = [{ pod: 'kube-system/cni-x7', node: 'i-1', message: '0/3 nodes are available: 1 Insufficient cpu.' }];
  const [v, ...more] = inv.check(snapshot(1000, { daemonsWithoutRoom }));
  t.equal(v?.invariant, 'daemon-pod-without-room');
  t.same(v?.objects, ['pod/kube-system/cni-x7', 'node/i-1']);
  t.equal(v?.message, '0/3 nodes are available: 1 Insufficient cpu.');
  t.same(more, []);
  t.same(inv.check(snapshot(1100, { daemonsWithoutRoom })), [], 'not again while it lasts');
  inv.check(snapshot(1200));
  t.equal(inv.check(snapshot(1300, { daemonsWithoutRoom }))[0]?.invariant, 'daemon-pod-without-room', 'again once it came back');
  t.end();
});

void t.test('a pod Unschedulable for longer than the grace, by its condition, is left behind at once', (t) => {
  const inv = new Invariants({ ...graces, podMissingMs: 10_000 }, 0);
  const pods = [pod('web-1', 'web'), unschedulable('web-2', 'web', 0), unschedulable('web-3', 'web', 950)];
  const first = inv.check(snapshot(1000, { deployments: [{ name: 'web', replicas: 3 }], pods }));
  t.same(first.map((v) => `${v.invariant} ${v.objects.join(',')} ${v.message}`), ['pod-unschedulable-too-long pod/default/web-2 Unschedulable for 1 s while a NodePool could serve it'],
    'web-2 had waited 1 s before the soak first saw it; web-3 only 50 ms');
  const later = inv.check(snapshot(1100, { deployments: [{ name: 'web', replicas: 3 }], pods }));
  t.same(later.map((v) => v.objects[0]), ['pod/default/web-3'], 'web-3 once its grace has passed, web-2 not again');
  t.end();
});

void t.test('pods of a pool a fault broke and pods no Deployment wants are not left behind; a Job pod is', (t) => {
  const inv = new Invariants({ ...graces, podMissingMs: 10_000 }, 0);
  inv.breakPool('never-ready', 'never-ready');
  const deployments = [{ name: 'web', replicas: 2 }, { name: 'never-ready', replicas: 1 }];
  const pods = [pod('web-1', 'web'), pod('web-2', 'web'), unschedulable('nr-1', 'never-ready', 0), unschedulable('old-1', 'deleted-app', 0), unschedulable('batch-1-abc', undefined, 0)];
  t.same(inv.check(snapshot(1000, { deployments, pods })).map((v) => `${v.invariant} ${v.objects[0] ?? ''}`), ['pod-unschedulable-too-long pod/default/batch-1-abc']);
  inv.mendPool('never-ready');
  t.same(inv.check(snapshot(1100, { deployments, pods })).map((v) => v.objects[0]), ['pod/default/nr-1'], 'once mended, a pod its Deployment still wants counts');
  t.end();
});
