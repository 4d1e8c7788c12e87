import { compareStrings } from '../compare.js';

/** The reason a pod gets when no NodePool was considered at all. */
export const noNodePoolMatches = 'no NodePool matches';
/** Counts why candidates failed for one pod, and renders one readable sentence. */
export class ReasonCollector {
  private readonly nodes = new Map<string, number>();
  private nodeTotal = 0;
  private readonly pools: string[] = [];

  node(reason: string, count = 1): void {
    if (count <= 0) return;
    this.nodeTotal += count;
    this.nodes.set(reason, (this.nodes.get(reason) ?? 0) + count);
  }

  pool(name: string, message: string): void {
    this.pools.push(`nodepool ${name}: ${message}`);
  }

  reset(): void {
    this.nodes.clear();
    this.nodeTotal = 0;
    this.pools.length = 0;
  }

  message(relaxed: readonly string[]): string {
    const parts: string[] = [];
    if (this.nodeTotal > 0) parts.push(`0/${this.nodeTotal} nodes fit: ${countsText(this.nodes)}`);
    parts.push(...this.pools);
    if (parts.length === 0) parts.push(noNodePoolMatches);
    const suffix = relaxed.length > 0 ? ` (after relaxing ${relaxed.join(', ')})` : '';
    return `${parts.join('; ')}${suffix}`;
  }
}

function countsText(counts: ReadonlyMap<string, number>): string {
  return [...counts].sort((a, b) => b[1] - a[1] || compareStrings(a[0], b[0])).map(([r, n]) => `${n} ${r}`).join(', ');
}

/**
 * "0/812 instance types: 640 too little memory, 172 arm64 excluded by kubernetes.io/arch requirement".
 * Requirement failures arrive as "req|key|value"; a key with few distinct values names them.
 */
export function typeReasonsText(reasons: ReadonlyMap<string, number>, total: number): string {
  const out = new Map<string, number>();
  const byKey = new Map<string, Map<string, number>>();
  for (const [reason, count] of reasons) {
    if (!reason.startsWith('req|')) {
      out.set(reason, count);
      continue;
    }
    const [, key = '', value = ''] = reason.split('|');
    const values = byKey.get(key) ?? new Map<string, number>();
    values.set(value, (values.get(value) ?? 0) + count);
    byKey.set(key, values);
  }
  for (const [key, values] of byKey) {
    if (values.size <= 3) for (const [value, count] of values) out.set(`${value} excluded by ${key} requirement`, count);
    else out.set(`excluded by ${key} requirement`, [...values.values()].reduce((a, b) => a + b, 0));
  }
  return `0/${total} instance types: ${countsText(out)}`;
}
