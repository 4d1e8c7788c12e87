// Module resolution hooks (registered by record-modules.ts): every URL the process resolves, one per line.
import { appendFileSync } from 'node:fs';

interface Resolved { readonly url: string }
type NextResolve = (specifier: string, context: unknown) => Promise<Resolved>;

let log = '';

export function initialize(data: { readonly log: string }): void {
  ({ log } = data);
}

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<Resolved> {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
