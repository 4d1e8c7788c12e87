import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { launchableTaint } from '../../../domain/product-keys.js';
import { isProvisionable, type EarlyPlanning } from '../../../provisioner/state/pending-pods.js';
import { ClusterState } from '../../../provisioner/state/cluster-state.js';

interface PodOptions { scheduler?: string; unschedulable?: boolean; gated?: boolean; owner?: string; priority?: number; preemptionPolicy?: string; tolerates?: boolean }

function pod(options: PodOptions = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', ...(options.owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: options.owner, name: 'o', uid: 'u' }] }) },
    spec: {
      containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }],
      ...(options.scheduler === undefined ? {} : { schedulerName: options.scheduler }),
      ...(options.gated === true ? { schedulingGates: [{ name: 'example.com/wait' }] } : {}),
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      ...(options.preemptionPolicy === undefined ? {} : { preemptionPolicy: options.preemptionPolicy }),
      // The pod webhook adds the launchable toleration to every pod it admits.
      ...(options.tolerates === false ? {} : { tolerations: [{ key: launchableTaint.key, operator: 'Exists' }] }),
    },
    status: {
      phase: 'Pending',
      ...(options.unschedulable === true ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } : {}),
    },
  };
}

const earlyFor = (schedulers: readonly string[], lowestRunningPriority?: number): EarlyPlanning => ({ schedulers: new Set(schedulers), lowestRunningPriority: () => lowestRunningPriority });
const early = earlyFor(['default-scheduler']);

void t.test('a pod kube-scheduler found no node for is provisionable, early planning or not', (t) => {
  t.ok(isProvisionable(pod({ unschedulable: true })));
  t.ok(isProvisionable(pod({ unschedulable: true }), early));
  t.end();
});

void t.test('an untried pod waits for kube-scheduler unless its scheduler is one that plans early', (t) => {
  t.notOk(isProvisionable(pod()), "Karpenter's rule: not before kube-scheduler tried it");
  t.ok(isProvisionable(pod(), early), 'the default scheduler calls the extender: planned at once');
  t.notOk(isProvisionable(pod({ scheduler: 'other-scheduler' }), early), 'a scheduler that does not call the extender is waited for');
  t.ok(isProvisionable(pod({ scheduler: 'nodesmith-scheduler' }), earlyFor(['nodesmith-scheduler'])), 'the second scheduler, when named');
  t.end();
});

void t.test('early planning never takes a gated pod or one that follows a node', (t) => {
  t.notOk(isProvisionable(pod({ gated: true }), early), 'a scheduling gate holds the pod back');
  t.notOk(isProvisionable(pod({ owner: 'DaemonSet' }), early), 'a DaemonSet pod follows nodes');
  t.notOk(isProvisionable(pod({ owner: 'DaemonSet', unschedulable: true }), early));
  t.end();
});

void t.test('early planning leaves to kube-scheduler a pod that may preempt, and one that cannot use a virtual node', (t) => {
  // A placeholder at priority -1 is there to be preempted: a pod of priority 0 must get its room, not a new node.
  const placeholders = earlyFor(['default-scheduler'], -1);
  t.notOk(isProvisionable(pod(), placeholders), 'a pod above a running pod\'s priority waits for kube-scheduler to preempt or to give up');
  t.ok(isProvisionable(pod({ unschedulable: true }), placeholders), 'and once kube-scheduler found no node (nor a preemption), it is planned');
  t.ok(isProvisionable(pod({ preemptionPolicy: 'Never' }), placeholders), 'a pod that never preempts is planned at once');
  t.ok(isProvisionable(pod({ priority: -1 }), placeholders), 'a pod no running pod is below is planned at once');
  t.ok(isProvisionable(pod({ priority: 1000 }), early), 'with no running pod there is nothing to preempt');
  t.notOk(isProvisionable(pod({ tolerates: false }), early), 'a pod without the launchable toleration would be launched for before kube-scheduler tried the nodes there are');
  t.ok(isProvisionable(pod({ tolerates: false, unschedulable: true }), early), 'it is planned once kube-scheduler found no node');
  t.end();
});

void t.test("the model knows the lowest running priority, so a placeholder's room is preempted rather than launched for", (t) => {
  const state = new ClusterState(undefined, { earlySchedulers: new Set(['default-scheduler']) });
  const placeholder = pod({ priority: -1 });
  state.upsertPod({ ...placeholder, metadata: { ...placeholder.metadata, name: 'placeholder' }, spec: { ...placeholder.spec, nodeName: 'ip-1' }, status: { phase: 'Running' } });
  state.upsertPod(pod());
  t.notOk(state.isPending('default/web'), 'the new pod may preempt the placeholder: kube-scheduler decides first');
  state.removePod({ metadata: { namespace: 'default', name: 'placeholder' } });
  state.upsertPod(pod());
  t.ok(state.isPending('default/web'), 'with no lower-priority pod running it is planned early');
  t.end();
});

void t.test('a pod whose scheduling gates were lifted is untried, though the API server marked it SchedulingGated', (t) => {
  const base = pod();
  const gatedAtCreation = (gates: readonly string[]): Pod => ({ ...base, spec: { ...base.spec, schedulingGates: gates.map((name) => ({ name })) }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } });
  t.ok(isProvisionable(gatedAtCreation([]), early), 'Kueue lifted its gate: planned early, before kube-scheduler tries it');
  t.notOk(isProvisionable(gatedAtCreation(['kueue.x-k8s.io/admission']), early), 'still gated: not yet');
  t.notOk(isProvisionable(gatedAtCreation([])), "without early planning, Karpenter's rule: only a pod kube-scheduler marked Unschedulable");
  t.end();
});
