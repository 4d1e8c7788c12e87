import { fileURLToPath } from 'node:url';
import t from 'tap';
import { checkQuery, unexplained } from './dashboards/coverage.js';
import { parseExposition } from './dashboards/exposition.js';
import { dashboardQueries, selectors, type DashboardQuery } from './dashboards/queries.js';

const fixture = (d: string): string => fileURLToPath(new URL(`../fixtures/karpenter-dashboards/karpenter-${d}-dashboard.json`, import.meta.url));
const query = (raw: string, custom: string[] = [raw]): DashboardQuery => ({ dashboard: 'test', where: 'panel', kind: 'panel', raw, expansions: custom });

void t.test("every query of Karpenter's two dashboards is read, variables included", (t) => {
  const capacity = dashboardQueries(fixture('capacity'));
  const performance = dashboardQueries(fixture('performance'));
  t.equal(capacity.filter((q) => q.kind === 'panel').length, 21);
  t.equal(capacity.filter((q) => q.kind === 'variable').length, 5);
  t.equal(performance.filter((q) => q.kind === 'panel').length, 16);
  t.equal(performance.filter((q) => q.kind === 'variable').length, 1);
  for (const q of [...capacity, ...performance]) t.ok(q.expansions.flatMap(selectors).length > 0, `${q.where} has selectors`);
  const distribution = capacity.find((q) => q.where.startsWith('Pod Distribution'));
  t.equal(distribution?.expansions.length, 7, 'one expansion per value of the custom $distribution_filter');
  t.end();
});

void t.test('selectors carry their matchers and the labels an enclosing aggregation groups by', (t) => {
  t.same(selectors('sum by (cluster, nodepool) (rate(karpenter_nodes_created_total{nodepool=~"a|b"}[5m])) or vector(0)'), [
    { metric: 'karpenter_nodes_created_total', matchers: [{ label: 'nodepool', op: '=~', value: 'a|b' }], groupedBy: ['cluster', 'nodepool'] },
  ]);
  t.same(selectors('label_values(karpenter_nodes_allocatable, zone)'), [{ metric: 'karpenter_nodes_allocatable', matchers: [], groupedBy: ['zone'] }]);
  t.throws(() => selectors('sum by ('), /not PromQL/);
  t.end();
});

const exposition = `# HELP karpenter_nodes_allocatable x
# TYPE karpenter_nodes_allocatable gauge
karpenter_nodes_allocatable{nodepool="default",resource_type="cpu",zone="us-west-2a"} 2
karpenter_nodes_allocatable{nodepool="N/A",resource_type="memory",zone=""} 1024
karpenter_pods_startup_duration_seconds{quantile="0.5"} NaN
`;

void t.test('a query shows data only when a sample matches and has every grouped-by label', (t) => {
  const samples = parseExposition(exposition);
  t.equal(samples.length, 3);
  t.ok(checkQuery(query('sum by (nodepool, cluster) (karpenter_nodes_allocatable{resource_type="cpu"})'), samples).satisfied, 'cluster comes from the scrape');
  t.same(checkQuery(query('karpenter_nodes_allocatable{nodepool!="N/A",resource_type="memory"}'), samples).problems, ['no sample of karpenter_nodes_allocatable{nodepool!="N/A",resource_type="memory"}']);
  t.same(checkQuery(query('sum by (arch) (karpenter_nodes_allocatable)'), samples).problems, ['karpenter_nodes_allocatable{} has no "arch" label (grouped by)']);
  t.notOk(checkQuery(query('karpenter_pods_startup_duration_seconds{quantile="0.5"}'), samples).satisfied, 'NaN is no data');
  t.ok(checkQuery(query('karpenter_nodes_allocatable{zone=~"__grafana_variable__"}'), samples).satisfied, 'a variable matches any value present');
  t.end();
});

void t.test('a metric nodesmith cannot serve is a known gap, not a failure; any other miss is', (t) => {
  const gap = checkQuery(query('sum by (node) (node_time_seconds)'), []);
  t.same(gap.gaps, ['node_time_seconds']);
  t.same(unexplained(gap), []);
  t.same(unexplained(checkQuery(query('karpenter_nodes_created_total'), [])), ['no sample of karpenter_nodes_created_total{}']);
  t.end();
});
