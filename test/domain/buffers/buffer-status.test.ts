import t from 'tap';
import type { CapacityBuffer } from '../../../domain/api/capacitybuffer-schema.js';
import { bufferOfPod, bufferPods, isBufferPod } from '../../../domain/buffers/buffer-pods.js';
import { provisioningCondition, resolveBuffer } from '../../../domain/buffers/buffer-status.js';
import type { PodTemplateSpec } from '../../../domain/core/pod.js';

const buffer = (spec: CapacityBuffer['spec'], status?: CapacityBuffer['status']): CapacityBuffer => ({
  apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'shop', uid: 'u1', generation: 2 }, spec, ...(status === undefined ? {} : { status }),
});

const template: PodTemplateSpec = {
  metadata: { labels: { app: 'checkout' } },
  spec: {
    nodeName: 'somewhere',
    containers: [{ name: 'app', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }, { name: 'config' }],
  },
};

void t.test('a buffer\'s room is N virtual pods of its template, marked as the buffer\'s and never placed already', (t) => {
  const pods = bufferPods(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 3 }), template, 3);
  t.same(pods.map((p) => p.metadata.name), ['capacity-buffer-warm-1', 'capacity-buffer-warm-2', 'capacity-buffer-warm-3']);
  t.same(new Set(pods.map((p) => p.metadata.uid)).size, 3, 'each has its own uid');
  t.ok(pods.every(isBufferPod));
  t.same(pods.map(bufferOfPod), ['shop/warm', 'shop/warm', 'shop/warm']);
  t.same(pods[0]?.metadata.labels, { app: 'checkout' }, 'the template labels, so spread and affinity count the room');
  t.equal(pods[0]?.spec.nodeName, undefined);
  t.same(pods[0]?.spec.volumes, [{ name: 'config' }], 'no claim will ever exist for a virtual pod');
  t.same(pods[0]?.status?.conditions, [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }]);
  t.notOk(isBufferPod({ metadata: { name: 'real' }, spec: { containers: [] } }));
  t.end();
});

void t.test('a resolved template buffer reports its replicas, its PodTemplate and its generation, ReadyForProvisioning True', (t) => {
  const resolved = resolveBuffer(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 10, provisioningStrategy: 'buffer.x-k8s.io/active-capacity' }), { found: true, template, podTemplate: { name: 'one-cpu', generation: 4 } });
  t.same(resolved.ready, { type: 'ReadyForProvisioning', status: 'True', reason: 'Resolved', message: 'Pod template resolved successfully' });
  t.same(resolved.fields, { provisioningStrategy: 'buffer.x-k8s.io/active-capacity', podTemplateRef: { name: 'one-cpu' }, podTemplateGeneration: 4, replicas: 10 });
  t.equal(resolved.pods.length, 10);
  t.end();
});

void t.test('a workload buffer keeps a percentage of its replicas, and reports no PodTemplate', (t) => {
  const resolved = resolveBuffer(buffer({ scalableRef: { kind: 'Deployment', name: 'checkout' }, percentage: 30 }), { found: true, template, workloadReplicas: 10 });
  t.same(resolved.fields, { replicas: 3 });
  t.equal(resolved.pods.length, 3);
  t.end();
});

void t.test('a reference that is not found says so, keeps the replicas it reported, and keeps no room', (t) => {
  const resolved = resolveBuffer(buffer({ podTemplateRef: { name: 'gone' }, replicas: 10 }, { replicas: 10 }), { found: false, reason: 'PodTemplateNotFound', message: 'PodTemplate "gone" not found' });
  t.same(resolved.ready, { type: 'ReadyForProvisioning', status: 'False', reason: 'PodTemplateNotFound', message: 'PodTemplate "gone" not found' });
  t.same(resolved.fields, { replicas: 10 });
  t.same(resolved.pods, []);
  t.same(provisioningCondition(resolved, undefined), { type: 'Provisioning', status: 'False', reason: 'NotReadyForProvisioning', message: 'Buffer is not ReadyForProvisioning' });
  t.end();
});

void t.test('Provisioning says whether the room fits the nodes there are, or needed new ones', (t) => {
  const resolved = resolveBuffer(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 4 }), { found: true, template, podTemplate: { name: 'one-cpu', generation: 1 } });
  t.equal(provisioningCondition(resolved, undefined), undefined, 'no pass has placed it yet');
  t.match(provisioningCondition(resolved, { existing: 1, newNodeClaims: 3, failed: 0 }), { status: 'False', reason: 'RequiresNewCapacity', message: '3/4 virtual pods required new capacity, 0 failed' });
  t.match(provisioningCondition(resolved, { existing: 3, newNodeClaims: 0, failed: 1 }), { status: 'False', reason: 'RequiresNewCapacity' });
  t.match(provisioningCondition(resolved, { existing: 4, newNodeClaims: 0, failed: 0 }), { status: 'True', reason: 'FitsExistingCapacity', message: 'All 4 virtual pods fit on existing capacity' });
  const empty = resolveBuffer(buffer({ podTemplateRef: { name: 'one-cpu' }, replicas: 0 }), { found: true, template });
  t.match(provisioningCondition(empty, undefined), { status: 'False', reason: 'BufferEmpty' });
  t.end();
});
