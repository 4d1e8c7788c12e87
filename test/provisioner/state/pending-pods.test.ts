import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { isProvisionable } from '../../../provisioner/state/pending-pods.js';

function pod(options: { scheduler?: string; unschedulable?: boolean; gated?: boolean; owner?: string } = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', ...(options.owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: options.owner, name: 'o', uid: 'u' }] }) },
    spec: {
      containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
      ...(options.scheduler === undefined ? {} : { schedulerName: options.scheduler }),
      ...(options.gated === true ? { schedulingGates: [{ name: 'example.com/wait' }] } : {}),
    },
    status: {
      phase: 'Pending',
      ...(options.unschedulable === true ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } : {}),
    },
  };
}

const early = new Set(['default-scheduler']);

void t.test('a pod kube-scheduler found no node for is provisionable, early planning or not', (t) => {
  t.ok(isProvisionable(pod({ unschedulable: true })));
  t.ok(isProvisionable(pod({ unschedulable: true }), early));
  t.end();
});

void t.test('an untried pod waits for kube-scheduler unless its scheduler is one that plans early', (t) => {
  t.notOk(isProvisionable(pod()), "Karpenter's rule: not before kube-scheduler tried it");
  t.ok(isProvisionable(pod(), early), 'the default scheduler calls the extender: planned at once');
  t.notOk(isProvisionable(pod({ scheduler: 'other-scheduler' }), early), 'a scheduler that does not call the extender is waited for');
  t.ok(isProvisionable(pod({ scheduler: 'nodesmith-scheduler' }), new Set(['nodesmith-scheduler'])), 'the second scheduler, when named');
  t.end();
});

void t.test('early planning never takes a gated pod or one that follows a node', (t) => {
  t.notOk(isProvisionable(pod({ gated: true }), early), 'a scheduling gate holds the pod back');
  t.notOk(isProvisionable(pod({ owner: 'DaemonSet' }), early), 'a DaemonSet pod follows nodes');
  t.notOk(isProvisionable(pod({ owner: 'DaemonSet', unschedulable: true }), early));
  t.end();
});
