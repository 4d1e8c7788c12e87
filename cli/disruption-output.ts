import type { ConsolidationDryRun } from '../provisioner/disruption/consolidation-dry-run.js';
import { offlinePrices } from './plan-output.js';

const money = (n: number): string => `$${n.toFixed(4)}/h`;

function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

function commandLines(report: ConsolidationDryRun): string[] {
  const lines: string[] = [];
  for (const c of report.commands) {
    const least = c.guaranteedSavingsPerHour < c.savingsPerHour ? ` (at least ${money(c.guaranteedSavingsPerHour)})` : '';
    lines.push(`${c.method}: ${c.explanation}${least}`);
    for (const m of c.moves) lines.push(`  ${m.pod}: ${m.from} → ${m.to}`);
  }
  for (const s of report.searches) {
    const batches = s.refusedBatches.length === 0 ? '' : `; refused batch sizes ${s.refusedBatches.map((b) => String(b.size)).join(', ')}`;
    lines.push(`${s.method} search: ${String(s.simulations)} simulations${s.timedOut ? ', stopped at its time budget' : ''}${batches}`);
  }
  return lines;
}

function nodeRow(n: ConsolidationDryRun['nodes'][number]): string[] {
  const verdict = n.command === null ? (n.reason ?? '') : `in the ${n.command} command`;
  return [n.name, n.nodePool ?? '-', n.instanceType ?? '-', n.capacityType ?? '-', n.zone ?? '-', n.pricePerHour.toFixed(4), String(n.pods), verdict];
}

/** The dry run for people: each method's command with its pod moves, then every node and its verdict. */
export function dryRunTable(report: ConsolidationDryRun): string {
  const head = `Consolidation at ${report.at}: ${report.acts === null ? 'no command' : `${report.acts} acts (the controller runs multi-node first)`}`;
  const rows = [['NODE', 'NODEPOOL', 'TYPE', 'CAPACITY', 'ZONE', '$/H', 'PODS', 'VERDICT'], ...report.nodes.map(nodeRow)];
  return `${[
    head, ...commandLines(report), '', columns(rows), '',
    `${String(report.totals.nodes)} nodes, ${money(report.totals.pricePerHour)}; the acting command saves ${money(report.totals.savingsPerHour)}`,
    `prices: on-demand ${offlinePrices.onDemand}; spot ${offlinePrices.spot}`,
  ].join('\n')}\n`;
}
