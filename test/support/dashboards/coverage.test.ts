import t from 'tap';
import { selectorProblems } from './coverage.js';
import type { Sample } from './exposition.js';

const decision = (labels: Record<string, string>): Sample => ({ name: 'karpenter_voluntary_disruption_decisions_total', labels, value: 1 });

void t.test('a panel grouping decisions by nodepool shows data from Karpenter\'s label set, which has no nodepool', (t) => {
  const selector = { metric: 'karpenter_voluntary_disruption_decisions_total', matchers: [], groupedBy: ['cluster', 'nodepool', 'consolidation_type', 'decision'] };
  t.same(selectorProblems(selector, [decision({ decision: 'delete', reason: 'empty', consolidation_type: 'empty' })]), []);
  t.end();
});

void t.test('any other grouped-by label the samples lack is still a problem', (t) => {
  const selector = { metric: 'karpenter_voluntary_disruption_decisions_total', matchers: [], groupedBy: ['nodepool', 'zone'] };
  t.same(selectorProblems(selector, [decision({ decision: 'delete' })]), ['karpenter_voluntary_disruption_decisions_total{} has no "zone" label (grouped by)']);
  t.same(selectorProblems({ ...selector, metric: 'karpenter_nodes_allocatable', groupedBy: ['nodepool'] }, [{ name: 'karpenter_nodes_allocatable', labels: {}, value: 1 }]), ['karpenter_nodes_allocatable{} has no "nodepool" label (grouped by)'], 'nodepool is excused only where Karpenter lacks it');
  t.end();
});
