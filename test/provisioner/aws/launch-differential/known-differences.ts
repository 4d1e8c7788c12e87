import { readFileSync } from 'node:fs';
import type { Difference } from './launch-shape.js';

/** A row of docs/launch-differences.md: differences nodesmith knowingly has, and why. */
export interface KnownDifference {
  readonly id: string;
  /** `/`-separated paths separated by `,`; `*` is one segment, `**` any number of them. */
  readonly path: string;
  /** Case-name globs separated by `,`; `*` matches any run of characters. */
  readonly cases: string;
  readonly reason: string;
}

/** Reads the table whose header is `| id | path | cases | reason |`. */
export function readKnownDifferences(file: string): KnownDifference[] {
  const rows: KnownDifference[] = [];
  let inTable = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const cells = line.trim().startsWith('|') ? line.trim().slice(1, -1).split('|').map((c) => c.trim().replace(/^`|`$/g, '')) : undefined;
    if (cells === undefined) {
      inTable = false;
      continue;
    }
    if (cells.join('|') === 'id|path|cases|reason') {
      inTable = true;
      continue;
    }
    if (!inTable || cells.every((c) => /^-+$/.test(c))) continue;
    const [id, path, cases, reason] = cells;
    if (id === undefined || path === undefined || cases === undefined || reason === undefined || reason === '')
      throw new Error(`${file}: a row needs id, path, cases and a reason: ${line}`);
    rows.push({ id, path, cases, reason });
  }
  return rows;
}

function pathMatches(pattern: string[], path: string[]): boolean {
  const [head, ...rest] = pattern;
  if (head === undefined) return path.length === 0;
  if (head === '**') return path.some((_, i) => pathMatches(rest, path.slice(i))) || pathMatches(rest, []);
  const [first, ...tail] = path;
  return first !== undefined && (head === '*' || head === first) && pathMatches(rest, tail);
}

function caseMatches(globs: string, name: string): boolean {
  return globs.split(',').some((g) => new RegExp(`^${g.trim().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name));
}

export function explains(known: KnownDifference, d: Difference): boolean {
  return caseMatches(known.cases, d.caseName) && known.path.split(',').some((p) => pathMatches(p.trim().split('/'), d.path.split('/')));
}

/** Each difference with the first row that explains it, or none. */
export function classify(known: readonly KnownDifference[], diffs: readonly Difference[]): { explained: Map<string, Difference[]>; unexplained: Difference[] } {
  const explained = new Map<string, Difference[]>(known.map((k) => [k.id, []]));
  const unexplained: Difference[] = [];
  for (const d of diffs) {
    const row = known.find((k) => explains(k, d));
    if (row === undefined) unexplained.push(d);
    else explained.get(row.id)?.push(d);
  }
  return { explained, unexplained };
}
