// What the model keeps of each object the watches deliver: the fields the domain reads, nothing heavy.
import t from 'tap';
import { projectNode, projectPod, projectWhole } from '../../../provisioner/kube/projection.js';

const wirePod = {
  apiVersion: 'v1', kind: 'Pod',
  metadata: {
    name: 'web-0', namespace: 'shop', uid: 'u1', resourceVersion: '42', labels: { app: 'web' },
    annotations: { 'karpenter.sh/do-not-disrupt': 'true', 'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}' },
    managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d', uid: 'r1', controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    nodeName: 'ip-1', priority: 100, terminationGracePeriodSeconds: 30,
    containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: 'b' }], resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 80, hostPort: 8080 }], livenessProbe: {} }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }, { name: 'cfg', configMap: { name: 'cfg' } }],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  },
  status: { phase: 'Running', podIP: '10.0.0.1', containerStatuses: [{ name: 'app' }], conditions: [{ type: 'Ready', status: 'True', message: 'long text', lastProbeTime: null }] },
};

void t.test('a pod keeps what scheduling, accounting and disruption read, and loses managedFields, images and statuses', (t) => {
  const kept = projectPod(wirePod);
  t.same(kept.metadata, {
    name: 'web-0', namespace: 'shop', uid: 'u1', resourceVersion: '42', labels: { app: 'web' },
    annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d', uid: 'r1', controller: true }],
  });
  t.same(kept.spec.containers, [{ name: 'app', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 80, hostPort: 8080 }] }]);
  t.same(kept.spec.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }, { name: 'cfg' }]);
  t.same(kept.status, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
  t.equal(kept.spec.priority, 100);
  t.ok(JSON.stringify(kept).length < JSON.stringify(wirePod).length, 'the kept copy is smaller');
  t.end();
});

void t.test('a node keeps capacity, taints and conditions, and loses its image list', (t) => {
  const kept = projectNode({
    metadata: { name: 'ip-1', labels: { a: 'b' } }, spec: { providerID: 'aws:///z/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' },
    status: { allocatable: { cpu: '4' }, images: [{ names: ['nginx'], sizeBytes: 1 }], nodeInfo: { kubeletVersion: 'v1.36.3' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: 't' }] },
  });
  t.same(kept, {
    metadata: { name: 'ip-1', labels: { a: 'b' } }, spec: { providerID: 'aws:///z/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: 't' }] },
  });
  t.end();
});

void t.test('other objects keep everything but managedFields and the last-applied annotation', (t) => {
  t.same(projectWhole({ metadata: { name: 'np', managedFields: [{}], annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } }, spec: { weight: 5 } }), { metadata: { name: 'np' }, spec: { weight: 5 } });
  t.same(projectWhole({ metadata: { name: 'np', annotations: { keep: 'me' } } }), { metadata: { name: 'np', annotations: { keep: 'me' } } });
  t.end();
});
