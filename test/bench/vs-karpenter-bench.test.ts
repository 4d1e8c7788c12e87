import t from 'tap';
import { comparisonTable, floorVerdict } from './vs-karpenter-bench.js';
import type { RunFigures } from './vs-karpenter-run.js';

const figures = (controller: RunFigures['controller'], over: Partial<RunFigures>): RunFigures => ({
  controller, boundS: 30, runningS: 40, curve: '', burst: { instances: 20, price: 20, types: '', spot: 0 }, burstBound: 18, boot: [1, 2],
  settleS: 200, settled: true, consolidated: { instances: 6, price: 6, types: '', spot: 0 }, consolidatedBound: 5.8, disrupted: 100, launches: 2,
  rssPeakMiB: 150, cpuBurstS: 10, cpuScaleS: 5, schedulerCpuS: 20, apiServerBurstCpuS: 25, kwokBurstCpuS: 2, nodes: [], ...over,
});

const row = (table: string, label: string): string => table.split('\n').find((l) => l.startsWith(`| ${label} |`)) ?? '';

void t.test('the table gives each figure under both, the ratio nodesmith ÷ Karpenter, and whether the issue\'s goal is met', (t) => {
  const table = comparisonTable([figures('karpenter', {})], [figures('nodesmith', { runningS: 16, consolidated: { instances: 5, price: 6.2, types: '', spot: 0 }, disrupted: 120 })]);
  t.equal(row(table, 'all pods Running (s)'), '| all pods Running (s) | 40.0 | 16.0 | 0.40 | ratio ≤ 0.5: met |');
  t.equal(row(table, '$/h after consolidation'), '| $/h after consolidation | 6.000 | 6.200 | 1.03 | ratio ≤ 0.9: not met |');
  t.match(row(table, '$/h after consolidation ÷ valid bound'), /\| 1\.069 \| 1\.03 \| nodesmith ≤ 1\.10: met \|$/, 'the bound goal is on nodesmith\'s own figure');
  t.match(row(table, 'pods disrupted'), /\| 100 \| 120 \| 1\.20 \| nodesmith ≤ Karpenter: not met \|$/);
  t.end();
});

void t.test('over several rounds each figure is the median of its runs', (t) => {
  const table = comparisonTable([figures('karpenter', { runningS: 40 }), figures('karpenter', { runningS: 60 })], [16, 10, 50].map((s) => figures('nodesmith', { runningS: s })));
  t.equal(row(table, 'all pods Running (s)'), '| all pods Running (s) | 50.0 | 16.0 | 0.32 | ratio ≤ 0.5: met |');
  t.end();
});

void t.test('the floor rows appear only when a floor was run, each side beside its own floor', (t) => {
  const without = comparisonTable([figures('karpenter', {})], [figures('nodesmith', {})]);
  t.notMatch(without, /floor/, 'no floor run (--no-floor): no floor rows, rather than rows of NaN');
  const withFloor = comparisonTable([figures('karpenter', { runningS: 40, floor: { boundS: 14, runningS: 16 } })], [figures('nodesmith', { runningS: 24, floor: { boundS: 13, runningS: 15 } })]);
  t.match(row(withFloor, 'floor: the same pods onto its nodes already there, no controller, all Running (s)'), /\| 16\.0 \| 15\.0 \| 0\.94 \|/);
  t.match(row(withFloor, 'all pods Running ÷ its floor'), /\| 2\.50 \| 1\.60 \|/);
  t.end();
});

void t.test('the verdict says whether half of Karpenter\'s time lies below what the stack reaches with no controller', (t) => {
  const below = floorVerdict([figures('karpenter', { runningS: 24, floor: { boundS: 14, runningS: 16 } })], [figures('nodesmith', { runningS: 19, floor: { boundS: 12, runningS: 14 } })]);
  t.match(below, /half of it 12\.0 s/);
  t.match(below, /14\.0 s on nodesmith's nodes, 16\.0 s on Karpenter's/);
  t.match(below, /below the stack's own floor on this machine.*lowest ratio any could reach is 0\.58, nodesmith's is 0\.79/);
  const above = floorVerdict([figures('karpenter', { runningS: 60, floor: { boundS: 14, runningS: 16 } })], [figures('nodesmith', { runningS: 25, floor: { boundS: 12, runningS: 14 } })]);
  t.match(above, /above the stack's floor, within reach \(nodesmith 0\.42\)/);
  t.equal(floorVerdict([figures('karpenter', {})], [figures('nodesmith', {})]), '', 'nothing to say without a floor');
  t.end();
});

void t.test('the extender floor is nodesmith\'s alone: its rows show no figure for Karpenter, and the verdict says what it leaves for a provisioner', (t) => {
  const karpenter = [figures('karpenter', { runningS: 16, floor: { boundS: 4, runningS: 5.5 } })];
  const table = comparisonTable(karpenter, [figures('nodesmith', { runningS: 10, floor: { boundS: 4, runningS: 5 }, extenderFloor: { boundS: 6, runningS: 7 } })]);
  t.match(row(table, 'extender floor: the same through a do-nothing extender, all Running (s)'), /\| – \| 7\.0 \| – \|/);
  t.match(row(table, 'all pods Running ÷ its extender floor'), /\| – \| 1\.43 \| – \|/);
  const within = floorVerdict(karpenter, [figures('nodesmith', { runningS: 10, floor: { boundS: 4, runningS: 5 }, extenderFloor: { boundS: 6, runningS: 7 } })]);
  t.match(within, /extender floor\): 7\.0 s, 0\.44× Karpenter's, leaving 1\.0 s for seeing the pods, planning, launching and binding \(nodesmith's 0\.63 is 1\.43× that floor\)/);
  const beyond = floorVerdict(karpenter, [figures('nodesmith', { runningS: 10, floor: { boundS: 4, runningS: 5 }, extenderFloor: { boundS: 8, runningS: 9 } })]);
  t.match(beyond, /9\.0 s, 0\.56× Karpenter's: no provisioner working as kube-scheduler's extender reaches 0\.5 on this machine/);
  t.notMatch(floorVerdict(karpenter, [figures('nodesmith', { runningS: 10, floor: { boundS: 4, runningS: 5 } })]), /extender/, 'no extender floor run: nothing said of it');
  t.end();
});
