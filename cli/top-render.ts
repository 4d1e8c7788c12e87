import type { NodeState, TopRow, TopView, Totals, Use } from './top-model.js';
import { compareStrings } from '../domain/compare.js';
import { formatAmount } from '../domain/quantity.js';

export const sortKeys = ['cost', 'cpu', 'memory', 'age', 'name'] as const;
export type SortKey = (typeof sortKeys)[number];

export interface RenderOptions {
  /** Terminal columns; every line is cut to it. */
  readonly width: number;
  /** Terminal rows; node rows beyond it are scrolled. Undefined: every row (--once, pipes). */
  readonly height?: number;
  readonly sort: SortKey;
  /** Show only this NodePool's nodes; undefined: all. */
  readonly nodePool?: string;
  /** First node row shown (scrolling). */
  readonly scroll?: number;
  /** ANSI colours and the key help line (a terminal); plain text otherwise. */
  readonly interactive: boolean;
  /** Wall-clock time of the frame, shown in the title. */
  readonly nowMs: number;
}

const stateColour: Record<NodeState, string> = {
  ready: '32', planned: '36', launching: '33', 'not ready': '31', draining: '31', drifted: '35', expiring: '35', consolidatable: '35',
};
const maxPendingLines = 8;

const percent = (u: Use): number => (u.allocatable > 0 ? Math.round((100 * u.requested) / u.allocatable) : 0);

/** requested ÷ allocatable as a bar of eight cells and a percentage, e.g. "█████░░░  63%". */
export function bar(u: Use, cells = 8): string {
  const filled = Math.min(cells, Math.round((cells * percent(u)) / 100));
  return `${'█'.repeat(filled)}${'░'.repeat(cells - filled)} ${String(percent(u)).padStart(3)}%`;
}

/** kubectl's ages: 45s, 12m, 5h, 3d. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${String(s)}s`;
  if (s < 7200) return `${String(Math.floor(s / 60))}m`;
  if (s < 172_800) return `${String(Math.floor(s / 3600))}h`;
  return `${String(Math.floor(s / 86_400))}d`;
}

const dollars = (n: number | undefined): string => (n === undefined ? '?' : n.toFixed(3));

const byKey: Record<SortKey, (a: TopRow, b: TopRow) => number> = {
  cost: (a, b) => (b.pricePerHour ?? 0) - (a.pricePerHour ?? 0),
  cpu: (a, b) => percent(b.cpu) - percent(a.cpu),
  memory: (a, b) => percent(b.memory) - percent(a.memory),
  age: (a, b) => b.ageMs - a.ageMs,
  name: () => 0,
};

/** Sorted by the key, then by name, so equal rows keep a stable order between frames. */
export function sortRows(rows: readonly TopRow[], key: SortKey): TopRow[] {
  return [...rows].sort((a, b) => byKey[key](a, b) || compareStrings(a.name, b.name));
}

/** Left-aligned columns sized to their widest cell. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  '));
}

function poolLines(view: TopView): string[] {
  const row = (t: Totals): string[] => [t.name, String(t.nodes), String(t.planned), dollars(t.pricePerHour), bar(t.cpu), bar(t.memory), String(t.pendingPods)];
  return table(['NODEPOOL', 'NODES', 'PLANNED', '$/H', 'CPU', 'MEMORY', 'PENDING'], [...view.pools.map(row), row(view.cluster)]);
}

function nodeCells(r: TopRow): string[] {
  return [r.name, r.instanceType, r.capacityType, r.zone, r.nodePool, age(r.ageMs), bar(r.cpu), bar(r.memory), String(r.pods), dollars(r.pricePerHour), r.state];
}

const count = (n: number, noun: string): string => `${String(n)} ${noun}${n === 1 ? '' : 's'}`;

function title(view: TopView, o: RenderOptions): string {
  const c = view.cluster;
  const clock = new Date(o.nowMs).toISOString().slice(11, 19);
  const sync = view.synced ? '' : ' · syncing…';
  return `nodesmith top · ${count(c.nodes, 'node')}, ${String(c.planned)} planned · ${count(c.pendingPods, 'pod')} pending · $${c.pricePerHour.toFixed(3)}/h · cpu ${String(percent(c.cpu))}% · memory ${String(percent(c.memory))}% · ${clock} UTC${sync}`;
}

function pendingLines(view: TopView): string[] {
  if (view.pending.length === 0) return [];
  const shown = view.pending.slice(0, maxPendingLines).map((p) => `  ${p.pod}  ${p.why}`);
  const more = view.pending.length > maxPendingLines ? [`  … ${String(view.pending.length - maxPendingLines)} more`] : [];
  return ['', `PENDING PODS (${String(view.pending.length)})`, ...shown, ...more];
}

function bookedLines(view: TopView): string[] {
  if (view.booked.length === 0) return [];
  const shown = view.booked.slice(0, maxPendingLines).map((b) => `  ${b.node}  ${b.request}  ${String(b.pods)} pods' room held: cpu ${formatAmount('cpu', b.cpu)}, memory ${formatAmount('memory', b.memory)}`);
  const more = view.booked.length > maxPendingLines ? [`  … ${String(view.booked.length - maxPendingLines)} more`] : [];
  return ['', `BOOKED FOR PROVISIONING REQUESTS (${String(view.booked.length)})`, ...shown, ...more];
}

const cut = (line: string, width: number): string => (line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line);

/** The node rows that fit: all of them, or a window of the height left once everything else is laid out. */
function visibleNodes(lines: readonly string[], fixed: number, o: RenderOptions): { shown: string[]; scroll: number; hidden: number } {
  if (o.height === undefined) return { shown: [...lines], scroll: 0, hidden: 0 };
  const room = Math.max(1, o.height - fixed - 1);
  const scroll = Math.max(0, Math.min(o.scroll ?? 0, lines.length - room));
  const shown = lines.slice(scroll, scroll + room);
  return { shown, scroll, hidden: lines.length - shown.length };
}

function colourState(line: string, row: TopRow | undefined, interactive: boolean): string {
  if (!interactive || row === undefined || !line.endsWith(row.state)) return line;
  return `${line.slice(0, line.length - row.state.length)}\u001b[${stateColour[row.state]}m${row.state}\u001b[0m`;
}

/** One frame as lines of at most `width` characters (colours excluded). */
export function renderTop(view: TopView, o: RenderOptions): string[] {
  const rows = sortRows(view.rows.filter((r) => o.nodePool === undefined || r.nodePool === o.nodePool), o.sort);
  const [header = '', ...nodeLines] = table(['NODE', 'TYPE', 'CAPACITY', 'ZONE', 'NODEPOOL', 'AGE', 'CPU', 'MEMORY', 'PODS', '$/H', 'STATE'], rows.map(nodeCells));
  const top = [title(view, o), '', ...poolLines(view), ''];
  const bottom = [...bookedLines(view), ...pendingLines(view), ...(o.interactive ? ['', `sort: ${o.sort} (s) · nodepool: ${o.nodePool ?? 'all'} (p) · scroll ↑/↓ · quit q`] : [])];
  const { shown, scroll, hidden } = visibleNodes(nodeLines, top.length + bottom.length + 1, o);
  const more = hidden > 0 ? [`  … ${String(hidden)} more nodes (rows ${String(scroll + 1)}–${String(scroll + shown.length)} of ${String(nodeLines.length)})`] : [];
  const bold = (line: string): string => (o.interactive ? `\u001b[1m${line}\u001b[0m` : line);
  const frame = [
    bold(cut(top[0] ?? '', o.width)), ...top.slice(1).map((l) => cut(l, o.width)), bold(cut(header, o.width)),
    ...shown.map((l, i) => colourState(cut(l, o.width), rows[scroll + i], o.interactive)),
    ...more, ...bottom.map((l) => cut(l, o.width)),
  ];
  // A terminal too small for everything keeps the top of the frame.
  return o.height === undefined ? frame : frame.slice(0, o.height);
}
