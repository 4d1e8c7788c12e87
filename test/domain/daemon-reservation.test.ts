import t from 'tap';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { Pod } from '../../domain/core/pod.js';
import { daemonRunsOn, pendingDaemonRequests, type DaemonTarget } from '../../domain/daemon-reservation.js';

function daemonSet(name: string, spec: Partial<DaemonSet['spec']['template']['spec']> = {}, cpu = '100m'): DaemonSet {
  return { metadata: { name, namespace: 'kube-system', uid: `uid-${name}` }, spec: { template: { spec: { containers: [{ name, resources: { requests: { cpu, memory: '128Mi' } } }], ...spec } } } };
}

const node: DaemonTarget = { name: 'i-1', labels: { 'kubernetes.io/arch': 'arm64', 'karpenter.sh/nodepool': 'default' }, taints: [], allocatable: { cpu: 940, memory: 1_459_617_792, pods: 8 } };

void t.test('a daemon runs where its node selector and required node affinity match', (t) => {
  t.ok(daemonRunsOn(daemonSet('any'), node));
  t.ok(daemonRunsOn(daemonSet('arm', { nodeSelector: { 'kubernetes.io/arch': 'arm64' } }), node));
  t.notOk(daemonRunsOn(daemonSet('amd', { nodeSelector: { 'kubernetes.io/arch': 'amd64' } }), node));
  const affinity = (terms: unknown[]): Partial<DaemonSet['spec']['template']['spec']> => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms as never } } } });
  t.ok(daemonRunsOn(daemonSet('either', affinity([{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }, { matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'Exists' }] }])), node), 'terms are ORed');
  t.notOk(daemonRunsOn(daemonSet('neither', affinity([{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['arm64'] }] }])), node));
  t.ok(daemonRunsOn(daemonSet('by-name', affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['i-1'] }] }])), node), 'the DaemonSet controller pins its pods by metadata.name');
  t.notOk(daemonRunsOn(daemonSet('other-name', affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['i-2'] }] }])), node));
  t.end();
});

void t.test("a daemon must tolerate the node's NoSchedule and NoExecute taints, beside those the controller adds", (t) => {
  const tainted = (taints: DaemonTarget['taints']): DaemonTarget => ({ ...node, taints });
  t.notOk(daemonRunsOn(daemonSet('plain'), tainted([{ key: 'gpu', value: 'true', effect: 'NoSchedule' }])));
  t.ok(daemonRunsOn(daemonSet('gpu', { tolerations: [{ key: 'gpu', operator: 'Exists' }] }), tainted([{ key: 'gpu', value: 'true', effect: 'NoSchedule' }])));
  t.ok(daemonRunsOn(daemonSet('plain'), tainted([{ key: 'soft', effect: 'PreferNoSchedule' }])), 'PreferNoSchedule binds nothing');
  t.ok(daemonRunsOn(daemonSet('plain'), tainted([{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'karpenter.sh/unregistered', effect: 'NoExecute' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }])));
  t.notOk(daemonRunsOn(daemonSet('plain'), tainted([{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])), 'only host-network daemons tolerate a node without its network');
  t.ok(daemonRunsOn(daemonSet('cni', { hostNetwork: true }), tainted([{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])));
  t.ok(daemonRunsOn(daemonSet('plain'), tainted([{ key: 'example.com/booting', effect: 'NoSchedule' }]), [{ key: 'example.com/booting', effect: 'NoSchedule' }]), 'a startup taint leaves by itself');
  t.end();
});

void t.test('the room kept is what the daemons still to come request, and nothing for one that could never fit', (t) => {
  const running: Pod = { metadata: { name: 'log-abc', namespace: 'kube-system', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'log', uid: 'uid-log' }] }, spec: { containers: [] } };
  const sets = [daemonSet('cni', {}, '100m'), daemonSet('log', {}, '50m'), daemonSet('huge', {}, '2')];
  t.same(pendingDaemonRequests(sets, node, []), { cpu: 150, memory: 268_435_456, pods: 2 });
  t.same(pendingDaemonRequests(sets, node, [running]), { cpu: 100, memory: 134_217_728, pods: 1 }, 'the log agent already runs there');
  const sameNameOtherSet: Pod = { ...running, metadata: { ...running.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'log', uid: 'uid-old-log' }] } };
  t.same(pendingDaemonRequests(sets, node, [sameNameOtherSet]), { cpu: 150, memory: 268_435_456, pods: 2 }, "a pod of a deleted DaemonSet of the same name is not the new one's");
  t.end();
});
