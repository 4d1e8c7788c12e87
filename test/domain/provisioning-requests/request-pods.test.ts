import t from 'tap';
import type { PodTemplateSpec } from '../../../domain/core/pod.js';
import { launchableTaint, podAnnotations } from '../../../domain/product-keys.js';
import type { ProvisioningRequest } from '../../../domain/provisioning-requests/provisioning-request.js';
import { isInputProblem, podSetProblem, requestPods, templateNames } from '../../../domain/provisioning-requests/request-pods.js';

const worker: PodTemplateSpec = {
  metadata: { labels: { job: 'train' }, annotations: { team: 'ml' } },
  spec: { nodeName: 'somewhere', containers: [{ name: 'w', resources: { requests: { cpu: '2', memory: '4Gi' } } }], tolerations: [{ key: 'gpu', operator: 'Exists' }] },
};
const driver: PodTemplateSpec = { spec: { containers: [{ name: 'd', resources: { requests: { cpu: '1' } } }] } };

function request(podSets: ProvisioningRequest['spec']['podSets']): ProvisioningRequest {
  return {
    apiVersion: 'autoscaling.x-k8s.io/v1', kind: 'ProvisioningRequest',
    metadata: { name: 'job-1', namespace: 'batch', uid: 'u1', creationTimestamp: '2026-11-28T10:00:00Z' },
    spec: { provisioningClassName: 'check-capacity.autoscaling.x-k8s.io', podSets },
  };
}

void t.test('a request becomes count pods of each PodSet, named and annotated as Cluster Autoscaler names them', (t) => {
  const pods = requestPods(request([{ podTemplateRef: { name: 'driver' }, count: 1 }, { podTemplateRef: { name: 'worker' }, count: 3 }]), new Map([['worker', worker], ['driver', driver]]));
  if (isInputProblem(pods)) throw new Error(pods.message);
  t.same(pods.map((p) => p.metadata.name), ['job-1-0-0', 'job-1-1-0', 'job-1-1-1', 'job-1-1-2']);
  const first = pods[1];
  t.equal(first?.metadata.namespace, 'batch', 'in the request\'s namespace');
  t.same(first?.metadata.labels, { job: 'train' }, 'with the template\'s labels, so spread and affinity count them');
  t.same(first?.metadata.annotations, { team: 'ml', 'autoscaling.x-k8s.io/consume-provisioning-request': 'job-1', 'autoscaling.x-k8s.io/provisioning-class-name': 'check-capacity.autoscaling.x-k8s.io' });
  t.equal(first?.metadata.creationTimestamp, '2026-11-28T10:00:00Z', 'as old as the request');
  t.equal(first?.spec.nodeName, undefined, 'no node chosen yet');
  t.same(first?.spec.tolerations, [{ key: 'gpu', operator: 'Exists' }, { key: launchableTaint.key, operator: 'Equal', value: 'true', effect: 'NoSchedule' }], 'the launchable toleration added as the pod webhook adds it');
  t.end();
});

void t.test('a template that opts out of the launchable toleration, or already tolerates it, is left as it is', (t) => {
  const optedOut: PodTemplateSpec = { metadata: { annotations: { [podAnnotations.skipLaunchableToleration]: 'true' } }, spec: driver.spec };
  const tolerating: PodTemplateSpec = { spec: { ...driver.spec, tolerations: [{ operator: 'Exists' }] } };
  const pods = requestPods(request([{ podTemplateRef: { name: 'a' }, count: 1 }, { podTemplateRef: { name: 'b' }, count: 1 }]), new Map([['a', optedOut], ['b', tolerating]]));
  if (isInputProblem(pods)) throw new Error(pods.message);
  t.same(pods.map((p) => p.spec.tolerations), [undefined, [{ operator: 'Exists' }]]);
  t.end();
});

void t.test('a missing template, an empty name, a count below 1 or no PodSet at all is a problem that names what is wrong', (t) => {
  t.same(requestPods(request([{ podTemplateRef: { name: 'worker' }, count: 2 }]), new Map()), { message: 'PodTemplate "worker" (spec.podSets[0]) not found in namespace batch' });
  t.same(podSetProblem(request([{ podTemplateRef: { name: 'worker' }, count: 1 }, { podTemplateRef: { name: 'worker' }, count: 0 }])), { message: 'spec.podSets[1].count is 0: it must be at least 1' });
  t.same(requestPods(request([{ podTemplateRef: {}, count: 1 }]), new Map()), { message: 'spec.podSets[0].podTemplateRef.name is empty' });
  t.same(podSetProblem(request([])), { message: 'spec.podSets is empty: a request needs at least one PodSet' });
  t.same(podSetProblem(request([{ podTemplateRef: { name: 'w' }, count: 1.5 }])), { message: 'spec.podSets[0].count is 1.5: it must be at least 1' });
  t.equal(podSetProblem(request([{ podTemplateRef: { name: 'w' }, count: 64 }])), undefined);
  t.end();
});

void t.test('the templates to read are named once each, empty names left out', (t) => {
  t.same(templateNames(request([{ podTemplateRef: { name: 'w' }, count: 1 }, { podTemplateRef: { name: 'w' }, count: 2 }, { podTemplateRef: {}, count: 1 }])), ['w']);
  t.end();
});

void t.test('a request without namespace or creation time makes pods in default with none', (t) => {
  const bare: ProvisioningRequest = { metadata: { name: 'r' }, spec: { provisioningClassName: 'check-capacity.autoscaling.x-k8s.io', podSets: [{ podTemplateRef: { name: 'd' }, count: 1 }] } };
  const pods = requestPods(bare, new Map([['d', driver]]));
  if (isInputProblem(pods)) throw new Error(pods.message);
  t.match(pods[0]?.metadata, { name: 'r-0-0', namespace: 'default', uid: 'default/r-0-0', labels: {} });
  t.notOk(pods[0] !== undefined && 'creationTimestamp' in pods[0].metadata);
  t.end();
});
