import t from 'tap';
import type { Pod } from '../../domain/core/pod.js';
import { foundUnschedulable, notScheduledBecause, podScheduledCondition } from '../../domain/core/pod-scheduled.js';

const withScheduled = (status: string, reason?: string): Pod => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [] },
  status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False', reason: 'Unschedulable' }, { type: 'PodScheduled', status, ...(reason === undefined ? {} : { reason }) }] },
});

void t.test("kube-scheduler's verdict is read from the PodScheduled condition alone", (t) => {
  t.equal(podScheduledCondition(withScheduled('False', 'Unschedulable'))?.type, 'PodScheduled', 'not the first condition of the list');
  t.ok(foundUnschedulable(withScheduled('False', 'Unschedulable')), 'tried and no node found');
  t.notOk(foundUnschedulable(withScheduled('False', 'SchedulingGated')), 'held by its gates: never tried');
  t.notOk(foundUnschedulable(withScheduled('True')), 'scheduled');
  t.notOk(foundUnschedulable({ metadata: { name: 'new' }, spec: { containers: [] } }), 'no status yet');
  t.notOk(foundUnschedulable({ ...withScheduled('False'), status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Unschedulable' }] } }), "another condition's reason is not the verdict");
  t.ok(notScheduledBecause(withScheduled('False', 'SchedulerError'), 'SchedulerError'), 'any reason can be asked for');
  t.end();
});
