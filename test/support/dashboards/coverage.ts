import type { Sample } from './exposition.js';
import { anyValue, selectors, type DashboardQuery, type Selector } from './queries.js';

/**
 * Labels Prometheus adds when it scrapes (`job`, `instance`) or that a multi-cluster setup adds as external labels
 * (`cluster`): a dashboard's matchers and groupings on them are satisfied by the scrape configuration (for the
 * performance dashboard, a scrape job named `karpenter`), not by the exporter.
 */
export const targetLabels: ReadonlySet<string> = new Set(['job', 'instance', 'cluster']);

/**
 * Labels a dashboard groups a metric by that Karpenter's own metric does not carry, so the panel shows data with
 * that label empty for Karpenter as for nodesmith: nodesmith keeps Karpenter's label set rather than the panel's.
 */
export const labelsKarpenterLacks: ReadonlyMap<string, readonly string[]> = new Map([
  // Karpenter labels decisions_total by decision, reason and consolidation_type; per NodePool it has
  // decisions_by_nodepool_total, which nodesmith serves too.
  ['karpenter_voluntary_disruption_decisions_total', ['nodepool']],
]);

/** Metrics a dashboard uses that nodesmith's /metrics does not serve, and why. */
export interface Gap {
  readonly reason: string;
  /** True while another piece of work is expected to add it: present or absent, the check passes. */
  readonly pending?: boolean;
}

export const knownGaps: ReadonlyMap<string, Gap> = new Map([
  ['node_time_seconds', { reason: "node-exporter's metric, scraped from every node; no provisioner serves it (Karpenter does not either)" }],
  ['node_boot_time_seconds', { reason: "node-exporter's metric, scraped from every node; no provisioner serves it (Karpenter does not either)" }],
]);

function matches(sample: Sample, m: Selector['matchers'][number]): boolean {
  if (targetLabels.has(m.label)) return true;
  const value = sample.labels[m.label] ?? '';
  if (m.value.includes(anyValue)) return m.op === '!=' || m.op === '!~' || value !== '';
  switch (m.op) {
    case '=': return value === m.value;
    case '!=': return value !== m.value;
    case '=~': return new RegExp(`^(?:${m.value})$`).test(value);
    case '!~': return !new RegExp(`^(?:${m.value})$`).test(value);
  }
}

/** What keeps one selector from showing data: no sample matches, or a grouped-by label is missing. */
export function selectorProblems(selector: Selector, samples: readonly Sample[]): string[] {
  const hits = samples.filter((s) => s.name === selector.metric && Number.isFinite(s.value) && selector.matchers.every((m) => matches(s, m)));
  const shown = `${selector.metric}{${selector.matchers.map((m) => `${m.label}${m.op}"${m.value.replace(anyValue, '$var')}"`).join(',')}}`;
  if (hits.length === 0) return [`no sample of ${shown}`];
  const lacking = labelsKarpenterLacks.get(selector.metric) ?? [];
  const missing = selector.groupedBy.filter((label) => !targetLabels.has(label) && !lacking.includes(label) && !hits.some((s) => (s.labels[label] ?? '') !== ''));
  return missing.map((label) => `${shown} has no "${label}" label (grouped by)`);
}

export interface QueryResult {
  readonly query: DashboardQuery;
  readonly problems: readonly string[];
  /** The metrics behind the problems that are known gaps. */
  readonly gaps: readonly string[];
  readonly satisfied: boolean;
}

/**
 * Whether a query shows data against one set of samples: every selector of every expansion matches at least one
 * sample with a finite value and carries every label it is grouped by. A query held back only by known gaps is
 * reported with them, not counted as satisfied.
 */
export function checkQuery(query: DashboardQuery, samples: readonly Sample[]): QueryResult {
  const problems: string[] = [];
  const gaps = new Set<string>();
  for (const expansion of query.expansions) {
    for (const selector of selectors(expansion)) {
      const found = selectorProblems(selector, samples);
      if (found.length > 0 && knownGaps.has(selector.metric)) gaps.add(selector.metric);
      problems.push(...found);
    }
  }
  return { query, problems: [...new Set(problems)], gaps: [...gaps], satisfied: problems.length === 0 };
}

/** Problems not explained by a known gap: these fail the check. */
export function unexplained(result: QueryResult): string[] {
  return result.problems.filter((p) => !result.gaps.some((g) => p.startsWith(`no sample of ${g}{`) || p.startsWith(`${g}{`)));
}
