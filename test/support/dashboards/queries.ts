import { readFileSync } from 'node:fs';
import { parser } from '@prometheus-io/lezer-promql';

/** One PromQL query of a dashboard: a panel target or a template variable's `label_values(...)`. */
export interface DashboardQuery {
  readonly dashboard: string;
  /** Panel title, or `$name` for a template variable. */
  readonly where: string;
  readonly kind: 'panel' | 'variable';
  /** The query with Grafana's variables expanded; one per value of a single-valued custom variable. */
  readonly expansions: readonly string[];
  readonly raw: string;
}

/** A vector selector: metric name, label matchers, and the labels an enclosing `by (...)` groups on. */
export interface Selector {
  readonly metric: string;
  readonly matchers: readonly { readonly label: string; readonly op: '=' | '!=' | '=~' | '!~'; readonly value: string }[];
  readonly groupedBy: readonly string[];
}

/** Stands for a query variable's value in a matcher: Grafana substitutes one of the values that exist. */
export const anyValue = '__grafana_variable__';

interface Panel { title?: string; targets?: { expr?: string }[]; panels?: Panel[] }
interface Variable { name: string; type: string; query?: string | { query?: string } }
interface Dashboard { title?: string; panels?: Panel[]; templating?: { list?: Variable[] } }

function panelsOf(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);
}

/**
 * Grafana's substitution: `$__rate_interval` becomes 5m, a custom variable each of its values in turn, a query
 * variable "any existing value" (a regex matcher with All selected matches everything).
 */
function expand(expr: string, custom: ReadonlyMap<string, readonly string[]>): string[] {
  let out = [expr.replace(/\$__rate_interval/g, '5m')];
  for (const [name, values] of custom) {
    const ref = new RegExp(`\\$${name}\\b`, 'g');
    out = out.flatMap((q) => (ref.test(q) ? values.map((v) => q.replace(ref, v)) : [q]));
  }
  return out.map((q) => q.replace(/\$\{?[A-Za-z_]\w*\}?/g, anyValue));
}

const variableQuery = (v: Variable): string => (typeof v.query === 'string' ? v.query : (v.query?.query ?? ''));

/** Every query of a Grafana dashboard JSON file. */
export function dashboardQueries(path: string): DashboardQuery[] {
  const board = JSON.parse(readFileSync(path, 'utf8')) as Dashboard;
  const name = board.title ?? path;
  const variables = board.templating?.list ?? [];
  const custom = new Map(variables.filter((v) => v.type === 'custom').map((v) => [v.name, variableQuery(v).split(',').map((x) => x.trim())]));
  const fromVariables = variables.filter((x) => x.type === 'query').map((v): DashboardQuery => {
    const raw = variableQuery(v);
    return { dashboard: name, where: `$${v.name}`, kind: 'variable', raw, expansions: expand(raw, custom) };
  });
  const fromPanels = panelsOf(board.panels ?? []).flatMap((panel) => (panel.targets ?? []).flatMap((target): DashboardQuery[] => {
    if (target.expr === undefined) return [];
    return [{ dashboard: name, where: panel.title ?? '(untitled)', kind: 'panel', raw: target.expr, expansions: expand(target.expr, custom) }];
  }));
  return [...fromVariables, ...fromPanels];
}

const unquote = (literal: string): string => JSON.parse(literal.startsWith("'") ? `"${literal.slice(1, -1).replace(/"/g, '\\"')}"` : literal) as string;

/** `label_values(metric{...}, label)`: the metric selector, grouped by the label it lists. */
function labelValues(query: string): Selector[] | undefined {
  const m = /^\s*label_values\((.*),\s*(\w+)\s*\)\s*$/s.exec(query);
  if (m === null) return undefined;
  return selectors(m[1] ?? '').map((s) => ({ ...s, groupedBy: [m[2] ?? ''] }));
}

type SyntaxNode = NonNullable<ReturnType<ReturnType<typeof parser.parse>['topNode']['getChild']>>;

const textOf = (query: string, node: SyntaxNode | null): string => (node === null ? '' : query.slice(node.from, node.to));

/** `sum by (a, b) (...)`: the labels; `without` or no modifier: none. */
function groupingLabels(query: string, aggregate: SyntaxNode): string[] {
  const modifier = aggregate.getChild('AggregateModifier');
  if (modifier?.getChild('By') == null) return [];
  return (modifier.getChild('GroupingLabels')?.getChildren('LabelName') ?? []).map((n) => textOf(query, n));
}

function vectorSelector(query: string, node: SyntaxNode, groupedBy: string[]): Selector {
  const matchers = (node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((m) => ({
    label: textOf(query, m.getChild('LabelName')),
    op: textOf(query, m.getChild('MatchOp')) as Selector['matchers'][number]['op'],
    value: unquote(textOf(query, m.getChild('StringLiteral'))),
  }));
  return { metric: textOf(query, node.getChild('Identifier')), matchers, groupedBy };
}

/** The vector selectors of a PromQL expression (or a `label_values` variable query), parsed by Prometheus' own grammar. */
export function selectors(query: string): Selector[] {
  const fromVariable = labelValues(query);
  if (fromVariable !== undefined) return fromVariable;
  const found: Selector[] = [];
  const cursor = parser.parse(query).cursor();
  // The aggregations enclosing the cursor, innermost last, with the labels each groups by.
  const enclosing: { to: number; labels: string[] }[] = [];
  do {
    while ((enclosing.at(-1)?.to ?? Infinity) <= cursor.from) enclosing.pop();
    if (cursor.type.isError) throw new Error(`not PromQL: ${query}`);
    if (cursor.name === 'AggregateExpr') enclosing.push({ to: cursor.to, labels: groupingLabels(query, cursor.node) });
    if (cursor.name === 'VectorSelector') found.push(vectorSelector(query, cursor.node, enclosing.flatMap((g) => g.labels)));
  } while (cursor.next());
  return found;
}
