import t from 'tap';
import type { CapacityBuffer, CapacityBufferStatus } from '../../../domain/api/capacitybuffer-schema.js';
import type { BufferSource } from '../../../domain/buffers/buffer-status.js';
import { FakeClock } from '../../../domain/clock.js';
import type { PodTemplateSpec } from '../../../domain/core/pod.js';
import { CapacityBufferController } from '../../../provisioner/buffers/buffer-controller.js';
import type { BufferSourceReader } from '../../../provisioner/ports/api-reads.js';
import type { BufferStatusWriter } from '../../../provisioner/ports/status-writers.js';
import { BufferRoom } from '../../../provisioner/buffers/buffer-room.js';

const oneCpu: PodTemplateSpec = { metadata: { labels: { app: 'burst' } }, spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } };

function buffer(name: string, spec: CapacityBuffer['spec']): CapacityBuffer {
  return { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1 }, spec };
}

/** The API as the controller sees it: PodTemplates and Deployments by name, and the status writes it made. */
class FakeApi implements BufferSourceReader, BufferStatusWriter {
  readonly templates = new Map<string, { template: PodTemplateSpec; generation: number }>();
  readonly deployments = new Map<string, { template: PodTemplateSpec; replicas: number }>();
  readonly written = new Map<string, CapacityBufferStatus>();

  sourceOf(b: CapacityBuffer): Promise<BufferSource> {
    const template = b.spec.podTemplateRef === undefined ? undefined : this.templates.get(b.spec.podTemplateRef.name);
    if (b.spec.podTemplateRef !== undefined) {
      return Promise.resolve(template === undefined ? { found: false, reason: 'PodTemplateNotFound', message: 'not found' } : { found: true, template: template.template, podTemplate: { name: b.spec.podTemplateRef.name, generation: template.generation } });
    }
    const workload = this.deployments.get(b.spec.scalableRef?.name ?? '');
    return Promise.resolve(workload === undefined ? { found: false, reason: 'ScalableRefNotFound', message: 'not found' } : { found: true, template: workload.template, workloadReplicas: workload.replicas });
  }

  patchStatus(namespace: string, name: string, status: CapacityBufferStatus): Promise<void> {
    this.written.set(`${namespace}/${name}`, status);
    return Promise.resolve();
  }
}

function setup(...buffers: CapacityBuffer[]): { room: BufferRoom; api: FakeApi; controller: CapacityBufferController } {
  const room = new BufferRoom();
  for (const b of buffers) room.handlers.upsert(b);
  const api = new FakeApi();
  return { room, api, controller: new CapacityBufferController({ room, reader: api, writer: api, clock: new FakeClock(1_700_000_000_000) }) };
}

void t.test('a template buffer of ten pods becomes ten virtual pods, and its status says so as Karpenter\'s does', async (t) => {
  const { room, api, controller } = setup(buffer('warm', { podTemplateRef: { name: 'one-cpu' }, replicas: 10, provisioningStrategy: 'buffer.x-k8s.io/active-capacity' }));
  api.templates.set('one-cpu', { template: oneCpu, generation: 3 });
  await controller.reconcile();
  t.equal(room.pods().length, 10);
  t.match(api.written.get('default/warm'), {
    replicas: 10, podTemplateRef: { name: 'one-cpu' }, podTemplateGeneration: 3, provisioningStrategy: 'buffer.x-k8s.io/active-capacity',
    conditions: [{ type: 'ReadyForProvisioning', status: 'True', reason: 'Resolved', observedGeneration: 1 }],
  });
});

void t.test('a missing PodTemplate leaves the buffer not ready, with no room kept, until it appears', async (t) => {
  const { room, api, controller } = setup(buffer('warm', { podTemplateRef: { name: 'one-cpu' }, replicas: 2 }));
  await controller.reconcile();
  t.same(room.pods(), []);
  t.match(api.written.get('default/warm')?.conditions, [
    { type: 'ReadyForProvisioning', status: 'False', reason: 'PodTemplateNotFound' },
    { type: 'Provisioning', status: 'False', reason: 'NotReadyForProvisioning' },
  ]);
  api.templates.set('one-cpu', { template: oneCpu, generation: 1 });
  await controller.reconcile();
  t.equal(room.pods().length, 2);
});

void t.test('a percentage of a Deployment follows its replicas, and the planner is woken when the room changes', async (t) => {
  const { room, api, controller } = setup(buffer('half', { scalableRef: { apiGroup: 'apps', kind: 'Deployment', name: 'web' }, percentage: 50 }));
  api.deployments.set('web', { template: oneCpu, replicas: 4 });
  let woken = 0;
  room.onChange(() => { woken++; });
  await controller.reconcile();
  t.equal(room.pods().length, 2);
  t.equal(api.written.get('default/half')?.replicas, 2);
  t.equal(api.written.get('default/half')?.podTemplateRef, undefined, 'a workload buffer names no PodTemplate');
  const before = woken;
  await controller.reconcile();
  t.equal(woken, before, 'the same room wakes nothing');
  api.deployments.set('web', { template: oneCpu, replicas: 10 });
  await controller.reconcile();
  t.equal(room.pods().length, 5);
  t.ok(woken > before, 'a resized room wakes the planner');
});

void t.test('a deleted buffer takes its room with it', async (t) => {
  const warm = buffer('warm', { podTemplateRef: { name: 'one-cpu' }, replicas: 3 });
  const { room, api, controller } = setup(warm);
  api.templates.set('one-cpu', { template: oneCpu, generation: 1 });
  await controller.reconcile();
  room.handlers.remove(warm);
  t.same(room.pods(), []);
  t.ok(room.isEmpty);
});
