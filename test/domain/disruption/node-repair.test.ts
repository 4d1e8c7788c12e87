import t from 'tap';
import type { RepairPolicy } from '../../../domain/cloud/repair-policy.js';
import type { Node, NodeCondition } from '../../../domain/core/node.js';
import { conditionLabel, isRepairBlocked, isUnhealthy, unhealthyCondition } from '../../../domain/disruption/node-repair.js';

const minute = 60_000;
const start = Date.UTC(2026, 10, 23, 12, 0, 0);
const policies: readonly RepairPolicy[] = [
  { conditionType: 'Ready', conditionStatus: 'False', tolerationMs: 30 * minute },
  { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationMs: 30 * minute },
  { conditionType: 'AcceleratedHardwareReady', conditionStatus: 'False', tolerationMs: 10 * minute },
];

function nodeWith(...conditions: NodeCondition[]): Node {
  return { metadata: { name: 'n' }, status: { conditions } };
}

const since = (ms: number): string => new Date(ms).toISOString();

void t.test('a matching condition is due for repair its toleration after it last changed', (t) => {
  const node = nodeWith({ type: 'Ready', status: 'Unknown', lastTransitionTime: since(start) });
  t.equal(unhealthyCondition(node, policies)?.repairAtMs, start + 30 * minute);
  t.equal(isUnhealthy(node, policies), true);
  t.end();
});

void t.test('a healthy node, or one whose condition matches no policy, has nothing to repair', (t) => {
  const ready = nodeWith({ type: 'Ready', status: 'True', lastTransitionTime: since(start) });
  const diskPressure = nodeWith({ type: 'DiskPressure', status: 'True', lastTransitionTime: since(start) });
  t.equal(unhealthyCondition(ready, policies), undefined);
  t.equal(unhealthyCondition(diskPressure, policies), undefined);
  t.equal(isUnhealthy(ready, policies), false);
  t.end();
});

void t.test('of several unhealthy conditions the one whose toleration ends first decides', (t) => {
  const node = nodeWith(
    { type: 'Ready', status: 'False', lastTransitionTime: since(start) },
    { type: 'AcceleratedHardwareReady', status: 'False', lastTransitionTime: since(start + 5 * minute) },
  );
  const found = unhealthyCondition(node, policies);
  t.equal(found?.condition.type, 'AcceleratedHardwareReady', 'the GPU condition is due at +15m, Ready only at +30m');
  t.equal(found?.repairAtMs, start + 15 * minute);
  t.end();
});

void t.test('a condition with no readable transition time is never repaired, but still counts as unhealthy', (t) => {
  const node = nodeWith({ type: 'Ready', status: 'False' }, { type: 'Ready', status: 'False', lastTransitionTime: 'yesterday' });
  t.equal(unhealthyCondition(node, policies), undefined);
  t.equal(isUnhealthy(node, policies), true);
  t.end();
});

void t.test('repair is blocked only when more than 20% of the nodes, rounded up, are unhealthy', (t) => {
  t.equal(isRepairBlocked(1, 1), false, 'a lone unhealthy node is repaired');
  t.equal(isRepairBlocked(1, 5), false);
  t.equal(isRepairBlocked(2, 5), true);
  t.equal(isRepairBlocked(2, 10), false);
  t.equal(isRepairBlocked(3, 10), true);
  t.equal(isRepairBlocked(3, 15), false, '15 × 20% is exactly 3, not 3.0000000000000004 rounded up to 4');
  t.equal(isRepairBlocked(4, 15), true);
  t.equal(isRepairBlocked(2, 6), false, '20% of 6 rounds up to 2');
  t.end();
});

void t.test('the condition label is the condition type in snake case, as Karpenter writes it', (t) => {
  t.equal(conditionLabel('Ready'), 'ready');
  t.equal(conditionLabel('AcceleratedHardwareReady'), 'accelerated_hardware_ready');
  t.end();
});
