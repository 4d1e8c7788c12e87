import t from 'tap';
import type * as k8s from '@kubernetes/client-node';
import { floorNodes } from './stack-floor.js';

const node = (name: string, labels: Record<string, string>, deleting = false): k8s.V1Node => ({
  metadata: { name, labels, ...(deleting ? { deletionTimestamp: new Date() } : {}) },
  status: { capacity: { cpu: '4', memory: '16Gi', pods: '58' }, allocatable: { cpu: '3920m', memory: '15Gi', pods: '58' } },
});

void t.test('the floor re-creates the real nodes a burst ended on, with what kube-scheduler reads of them', (t) => {
  const nodes = floorNodes([
    node('ip-10-0-1-5.ec2.internal', { 'node.kubernetes.io/instance-type': 'm6g.xlarge', 'topology.kubernetes.io/zone': 'us-east-1a' }),
    node('launchable-default-abc12', { 'nodesmith.io/launchable': 'true' }),
    node('ip-10-0-1-6.ec2.internal', {}, true),
  ]);
  t.same(nodes.map((n) => n.name), ['ip-10-0-1-5.ec2.internal', 'ip-10-0-1-5.ec2.internal-spare'], 'a virtual node and a node being deleted are no room a pod can take; one spare like the largest');
  t.same(nodes[0]?.labels, { 'node.kubernetes.io/instance-type': 'm6g.xlarge', 'topology.kubernetes.io/zone': 'us-east-1a' });
  t.same(nodes[0]?.allocatable, { cpu: '3920m', memory: '15Gi', pods: '58' });
  t.same(nodes[0]?.capacity, { cpu: '4', memory: '16Gi', pods: '58' });
  t.equal(nodes[1]?.labels['kubernetes.io/hostname'], 'ip-10-0-1-5.ec2.internal-spare', 'the spare is a host of its own for hostname spread');
  t.end();
});

void t.test('the spare is a copy of the largest node by allocatable CPU', (t) => {
  const small = node('small', {});
  const large: k8s.V1Node = { metadata: { name: 'large', labels: { 'kubernetes.io/hostname': 'large' } }, status: { allocatable: { cpu: '47810m', memory: '87943Mi' }, capacity: { cpu: '48' } } };
  const nodes = floorNodes([small, large]);
  t.same(nodes.map((n) => n.name), ['small', 'large', 'large-spare']);
  t.same(nodes[2]?.allocatable, { cpu: '47810m', memory: '87943Mi' });
  t.same(floorNodes([]), [], 'no nodes, no spare');
  t.end();
});
