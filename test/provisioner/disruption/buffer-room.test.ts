import t from 'tap';
import type { CapacityBuffer } from '../../../domain/api/capacitybuffer-schema.js';
import { bufferPods, isBufferPod } from '../../../domain/buffers/buffer-pods.js';
import { ConsolidationMethod } from '../../../provisioner/disruption/consolidation-method.js';
import { EmptinessMethod } from '../../../provisioner/disruption/emptiness.js';
import { candidate, cluster, launched, methodContext, pool, priceOf, types } from './consolidation-fixtures.js';
import { Harness, initializedClaim } from './harness.js';

const minute = 60_000;
const now = 100 * minute;

const warm: CapacityBuffer = { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'default', uid: 'u' }, spec: { podTemplateRef: { name: 't' }, replicas: 2 } };
const room = (cpu: string, replicas: number): ReturnType<typeof bufferPods> => bufferPods(warm, { spec: { containers: [{ name: 'app', resources: { requests: { cpu, memory: '1Gi' } } }] } }, replicas);

void t.test('emptiness leaves a node that holds a buffer\'s room, and takes it once the room has moved away', async (t) => {
  const roomOn = new Map<string, number>([['i-warm', 2]]);
  const h = new Harness({ methods: () => [new EmptinessMethod({ roomOn: (node) => roomOn.get(node) ?? 0 })] });
  await h.addNode('i-warm', initializedClaim('nc-warm', 'i-warm', ['Consolidatable']));
  await h.run(60_000);
  t.notOk(h.isTainted('i-warm'), 'a node holding room runs nothing yet on purpose: it is not empty');
  t.notOk(await h.isDeleting('nc-warm'));
  roomOn.delete('i-warm');
  await h.run(30_000);
  t.ok(await h.isDeleting('nc-warm'), 'without room on it, the empty node goes');
});

void t.test('an emptiness command whose node took room during its validation delay is dropped', async (t) => {
  const roomOn = new Map<string, number>();
  const h = new Harness({ methods: () => [new EmptinessMethod({ roomOn: (node) => roomOn.get(node) ?? 0 })] });
  await h.addNode('i-warm', initializedClaim('nc-warm', 'i-warm', ['Consolidatable']));
  await h.controller.reconcile();
  roomOn.set('i-warm', 1);
  await h.run(20_000);
  t.notOk(await h.isDeleting('nc-warm'));
});

void t.test('consolidation keeps the buffer\'s room: a node whose pods fit elsewhere is replaced, not deleted, when the room would not fit what is left', async (t) => {
  const nodes = [launched('spare', 'm5.xlarge', ['500m']), launched('host', 'm5.xlarge', ['1', '1'])];
  const state = cluster(nodes, [pool()]);
  const candidates = nodes.map((n) => candidate(state, n));
  const method = (): ConsolidationMethod => new ConsolidationMethod('single', { clock: { now: () => now, sleep: () => Promise.resolve() }, priceOf, instanceTypes: () => types, unavailableOfferings: () => new Set(), options: { spotToSpot: false } });
  const [without] = await method().computeCommands(candidates, methodContext(state, now));
  t.same(without?.candidates.map((c) => c.nodeName), ['spare'], 'without a buffer the spare node is deleted');
  t.same(without?.replacements, []);
  const [withRoom] = await method().computeCommands(candidates, methodContext(state, now, {}, { roomPods: room('1500m', 2) }));
  t.same(withRoom?.candidates.map((c) => c.nodeName), ['spare']);
  t.equal(withRoom?.replacements.length, 1, 'the spare node goes only with a replacement (a cheaper one) that holds the room the host cannot');
  t.ok(withRoom?.replacements[0]?.pods.some(isBufferPod), 'the replacement is sized for room pods too');
  const [small] = await method().computeCommands(candidates, methodContext(state, now, {}, { roomPods: room('100m', 2) }));
  t.same(small?.candidates.map((c) => c.nodeName), ['spare'], 'room that fits what is left does not stand in the way');
});
