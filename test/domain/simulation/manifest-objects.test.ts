import t from 'tap';
import { collectManifests, ManifestError, snapshotFrom } from '../../../domain/simulation/manifest-objects.js';

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c' }] } };

void t.test('workloads expand into their replicas with owner references', (t) => {
  const set = collectManifests([
    { source: 'f', value: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { replicas: 3, template } } },
    { source: 'f', value: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { template } } },
    { source: 'f', value: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { parallelism: 2, template } } },
    { source: 'f', value: { kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }] } },
    { source: 'f', value: null },
  ]);
  t.same(set.pods.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`), ['ns/d-0', 'ns/d-1', 'ns/d-2', 'default/s-0', 'default/j-0', 'default/j-1']);
  t.equal(set.pods[0]?.metadata.ownerReferences?.[0]?.kind, 'Deployment');
  t.same(set.ignored, ['ConfigMap cm']);
  t.end();
});

void t.test('malformed objects are refused with the source and field', (t) => {
  t.throws(() => collectManifests([{ source: 'x.yaml', value: 'text' }]), ManifestError);
  t.throws(() => collectManifests([{ source: 'x.yaml', value: { kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: -1, template } } }]), /spec\.replicas must be a non-negative integer/);
  t.throws(() => collectManifests([{ source: 'x.yaml', value: { kind: 'Pod', metadata: { name: 'p' }, spec: {} } }]), /x\.yaml: Pod p: spec\.containers must be a list of containers/);
  t.end();
});

void t.test('pods with a nodeName are bound to their node, the rest are pending', (t) => {
  const set = collectManifests([
    { source: 'f', value: { kind: 'Node', metadata: { name: 'n1' }, status: { allocatable: { cpu: '2', memory: '1Gi', pods: '10' } } } },
    { source: 'f', value: { kind: 'Pod', metadata: { name: 'bound' }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] } } },
    { source: 'f', value: { kind: 'Pod', metadata: { name: 'free' }, spec: { containers: [{ name: 'c' }] } } },
  ]);
  const { nodes, pending } = snapshotFrom(set);
  t.equal(nodes[0]?.pods[0]?.metadata.name, 'bound');
  t.same(nodes[0]?.allocatable, { cpu: 2000, memory: 2 ** 30, pods: 10 });
  t.equal(nodes[0]?.labels['kubernetes.io/hostname'], 'n1');
  t.same(pending.map((p) => p.metadata.name), ['free']);
  t.end();
});
