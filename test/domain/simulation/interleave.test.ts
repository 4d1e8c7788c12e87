import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { interleaveInterchangeable, interchangeableKey, schedulingOrder } from '../../../domain/simulation/interleave.js';
import type { PlannedNodeClaim } from '../../../domain/simulation/simulation-input.js';
import { pod } from './fixtures.js';

const owner = (uid: string): NonNullable<Pod['metadata']['ownerReferences']> => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, controller: true }];

/** A replica of ReplicaSet `rs`, created at second `second`. */
function replica(name: string, rs: string, second = 0, extra: Partial<Pod['spec']> = {}): Pod {
  const base = pod(name, { labels: { app: rs }, spec: extra });
  return { ...base, metadata: { ...base.metadata, ownerReferences: owner(rs), creationTimestamp: new Date(1_700_000_000_000 + second * 1000).toISOString() } };
}

function claim(name: string, pods: readonly Pod[]): PlannedNodeClaim {
  return { name, nodePool: 'default', instanceTypes: ['c6g.xlarge'], pods, pricePerHour: 0.136, requests: {}, allocatable: {}, labels: {} };
}

const names = (claims: readonly PlannedNodeClaim[]): string[][] => claims.map((c) => c.pods.map((p) => p.metadata.name ?? ''));

void t.test('the oldest replicas go one to each new node, so kube-scheduler binds a pod to every node at once', (t) => {
  const web = Array.from({ length: 5 }, (_, i) => replica(`web-${String(i)}`, 'web'));
  // Packed in creation order, the first node holds the three oldest.
  const dealt = interleaveInterchangeable([claim('a', web.slice(0, 3)), claim('b', web.slice(3))], schedulingOrder(web));
  t.same(names(dealt), [['web-0', 'web-2', 'web-4'], ['web-1', 'web-3']]);
  t.end();
});

void t.test('each node keeps as many pods of each kind as the simulation gave it', (t) => {
  const web = Array.from({ length: 4 }, (_, i) => replica(`web-${String(i)}`, 'web'));
  const api = Array.from({ length: 3 }, (_, i) => replica(`api-${String(i)}`, 'api'));
  const claims = [claim('a', [web[0], web[1], web[2], api[0]].filter((p) => p !== undefined)), claim('b', [web[3], api[1], api[2]].filter((p) => p !== undefined)), claim('c', [])];
  const dealt = interleaveInterchangeable(claims, schedulingOrder([...web, ...api]));
  const countOf = (c: PlannedNodeClaim, app: string): number => c.pods.filter((p) => p.metadata.labels?.['app'] === app).length;
  t.same(dealt.map((c) => [countOf(c, 'web'), countOf(c, 'api')]), [[3, 1], [1, 2], [0, 0]]);
  t.same(names(dealt), [['web-0', 'web-2', 'web-3', 'api-0'], ['web-1', 'api-1', 'api-2'], []]);
  t.end();
});

void t.test('a pod with its own claim, or with no controller, stays where the simulation put it', (t) => {
  const withVolume = replica('db-0', 'db', 0, { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }] });
  const ephemeral = replica('scratch-0', 'db', 0, { volumes: [{ name: 'tmp', ephemeral: {} } as never] });
  const devices = replica('gpu-0', 'db', 0, { resourceClaims: [{ name: 'gpu' }] } as never);
  const bare = pod('bare');
  for (const p of [withVolume, ephemeral, devices, bare]) t.equal(interchangeableKey(p), undefined, `${p.metadata.name ?? ''} is not interchangeable`);
  const twin = replica('db-1', 'db');
  const dealt = interleaveInterchangeable([claim('a', [withVolume, bare]), claim('b', [twin])], schedulingOrder([withVolume, bare, twin]));
  t.same(names(dealt), [['db-0', 'bare'], ['db-1']]);
  t.end();
});

void t.test('replicas of different templates are not mixed: their labels or requests differ', (t) => {
  const old = replica('web-a', 'web');
  const bigger = { ...replica('web-b', 'web'), spec: { containers: [{ name: 'app', resources: { requests: { cpu: '2' } } }] } };
  t.not(interchangeableKey(old), interchangeableKey(bigger));
  const relabelled = { ...old, metadata: { ...old.metadata, labels: { app: 'web', 'pod-template-hash': 'x' } } };
  t.not(interchangeableKey(old), interchangeableKey(relabelled));
  t.end();
});

void t.test("kube-scheduler's order: higher priority first, then the older pod, then the order the watch gave", (t) => {
  const late = replica('late', 'web', 5);
  const early = replica('early', 'web', 1);
  const urgent = { ...replica('urgent', 'web', 9), spec: { ...replica('urgent', 'web', 9).spec, priority: 1000 } };
  const sameSecondFirst = replica('same-1', 'web', 1);
  const pods = [late, early, sameSecondFirst, urgent];
  t.same([...pods].sort(schedulingOrder(pods)).map((p) => p.metadata.name), ['urgent', 'early', 'same-1', 'late']);
  t.end();
});
