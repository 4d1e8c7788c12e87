import t from 'tap';
import { comparisonTable } from './vs-karpenter-bench.js';
import type { RunFigures } from './vs-karpenter-run.js';

const figures = (controller: RunFigures['controller'], over: Partial<RunFigures>): RunFigures => ({
  controller, boundS: 30, runningS: 40, curve: '', burst: { instances: 20, price: 20, types: '', spot: 0 }, burstBound: 18, boot: [1, 2],
  settleS: 200, settled: true, consolidated: { instances: 6, price: 6, types: '', spot: 0 }, consolidatedBound: 5.8, disrupted: 100, launches: 2,
  rssPeakMiB: 150, cpuBurstS: 10, cpuScaleS: 5, schedulerCpuS: 20, apiServerBurstCpuS: 25, kwokBurstCpuS: 2, ...over,
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
