import type * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { daemonPodsWithoutRoom, leftBehindLines, podsUnschedulableLongerThan } from './pods-left-behind.js';

const unschedulable = (lastTransitionTime: string): k8s.V1PodCondition => ({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 1 Insufficient cpu.', lastTransitionTime: new Date(lastTransitionTime) });

/** A DaemonSet's pod as its controller makes it: pinned to `node` with a metadata.name field selector. */
function daemonPod(name: string, node: string, conditions: k8s.V1PodCondition[]): k8s.V1Pod {
  return {
    metadata: { name, namespace: 'kube-system', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'cni', uid: 'u' }] },
    spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } } },
    status: { phase: 'Pending', conditions },
  };
}

const node = (name: string, labels: Record<string, string> = {}): k8s.V1Node => ({ metadata: { name, labels } });

void t.test('a DaemonSet pod Unschedulable for a real node has no room; one for a virtual node, or placed, does not count', (t) => {
  const nodes = [node('i-1'), node('launchable-soak-1', { 'nodesmith.io/launchable': 'true' })];
  const pods = [
    daemonPod('cni-a', 'i-1', [unschedulable('2026-01-01T00:00:00Z')]),
    daemonPod('cni-b', 'launchable-soak-1', [unschedulable('2026-01-01T00:00:00Z')]),
    daemonPod('cni-c', 'i-1', [{ type: 'PodScheduled', status: 'True' }]),
    daemonPod('cni-d', 'i-gone', [unschedulable('2026-01-01T00:00:00Z')]),
  ];
  t.same(daemonPodsWithoutRoom(pods, nodes), [{ pod: 'kube-system/cni-a', node: 'i-1', message: '0/2 nodes are available: 1 Insufficient cpu.' }]);
  t.end();
});

void t.test('a pod is Unschedulable for as long as its condition has held, whenever it was created', (t) => {
  const pod = (name: string, created: string, since: string): k8s.V1Pod => ({ metadata: { name, namespace: 'default', creationTimestamp: new Date(created) }, spec: { containers: [] }, status: { conditions: [unschedulable(since)] } });
  const now = Date.parse('2026-01-01T00:10:00Z');
  const pods = [pod('old-but-recent', '2026-01-01T00:00:00Z', '2026-01-01T00:09:00Z'), pod('waiting', '2026-01-01T00:07:00Z', '2026-01-01T00:07:30Z'), { metadata: { name: 'running' }, status: { phase: 'Running' } }];
  t.same(podsUnschedulableLongerThan(pods, 120_000, now), ['default/waiting for 150 s']);
  t.end();
});

void t.test("a bench's lines give each count and the first of what it counted", (t) => {
  t.equal(leftBehindLines({ daemonsWithoutRoom: [], unschedulable: ['default/a for 130 s'] }, { qualifier: ', most at a sample', indent: '  ' }),
    '  DaemonSet pods without room, most at a sample: 0\n  pods Unschedulable for more than 2 minutes, most at a sample: 1 (default/a for 130 s)\n');
  t.end();
});
