import type { ProductStack } from '../e2e/product-stack.js';

/** The API server's apiserver_request_total, all clients, summed by a key of each series' labels. */
export type RequestTotals = ReadonlyMap<string, number>;

const label = (line: string, name: string): string => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';

/** "verb resource[/subresource]", as the audit log's kinds read. */
export const byVerbAndResource = (line: string): string => {
  const sub = label(line, 'subresource');
  return `${label(line, 'verb')} ${label(line, 'resource') || '(non-resource)'}${sub === '' ? '' : `/${sub}`}`;
};

export const byVerb = (line: string): string => label(line, 'verb') || '?';

/** Read from the API server's /metrics now. */
export async function requestTotals(product: ProductStack, keyOf: (line: string) => string): Promise<RequestTotals> {
  const r = await product.stack.kubectl(['get', '--raw', '/metrics']);
  if (r.code !== 0) throw new Error(`kubectl get --raw /metrics failed: ${r.stderr}`);
  const totals = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const key = keyOf(line);
    totals.set(key, (totals.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return totals;
}

/** What each key grew by between two readings, most first, zeros left out. */
export function requestsBetween(before: RequestTotals, after: RequestTotals): [string, number][] {
  return [...after.entries()].map(([key, n]): [string, number] => [key, n - (before.get(key) ?? 0)]).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
}

// apiserver_request_total names verbs in capitals, as HTTP does (LIST and WATCH apart from GET; APPLY a server-side apply).
const isWrite = (key: string): boolean => /^(POST|PUT|PATCH|APPLY|DELETE|DELETECOLLECTION) /.test(key);

/**
 * The writes of a window, per pod of the burst it carried: the API server's work a provisioner adds (or saves)
 * beside the pods' own creates, binds and status updates, which the same burst onto existing nodes also has.
 */
export function writesPerPodLine(title: string, between: readonly [string, number][], pods: number): string {
  const writes = between.filter(([key]) => isWrite(key));
  const total = writes.reduce((sum, [, n]) => sum + n, 0);
  const top = writes.slice(0, 10).map(([key, n]) => `${key} ${(n / pods).toFixed(2)}`).join(', ');
  return `${title}: ${String(total)} API writes, ${(total / pods).toFixed(2)} per pod (${top})\n`;
}
