// Every field of a valid request replaced by every JSON type: the extender answers 200 or 400, never a 500.
import t from 'tap';
import { extenderArgs, harness, node, pod } from './builders.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const replacements: Json[] = [null, true, -1, 1e308, '', 'lots', [], [1], {}, { a: 1 }];

/** Every path to a value inside `value`, as key lists. */
function paths(value: Json, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))];
}

function replaced(value: Json, path: readonly string[], replacement: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === head ? replaced(v, rest, replacement) : v));
  if (value === null || typeof value !== 'object') return value;
  return { ...value, [head]: replaced(value[head] ?? null, rest, replacement) };
}

const bodies: Record<string, Json> = {
  '/filter': JSON.parse(JSON.stringify(extenderArgs(pod({ annotations: { 'nodesmith.io/max-price-per-hour': '0.5' } }), ['a', 'launchable-x']))) as Json,
  '/prioritize': JSON.parse(JSON.stringify({ Pod: pod(), Nodes: { items: [node('a')] } })) as Json,
  '/bind': { PodName: 'web-0', PodNamespace: 'default', PodUID: 'u', Node: 'a' },
};

for (const [url, body] of Object.entries(bodies)) {
  void t.test(`${url} answers 200 or 400 to every single-field mutation`, async (t) => {
    const h = harness();
    h.view.apply({ kind: 'node-upserted', node: node('a') });
    const statuses = new Map<number, number>();
    for (const path of paths(body)) {
      for (const replacement of replacements) {
        const response = await h.app.inject({ method: 'POST', url, payload: JSON.stringify(replaced(body, path, replacement)), headers: { 'content-type': 'application/json' } });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (response.statusCode !== 200 && response.statusCode !== 400) t.fail(`${path.join('.')} = ${JSON.stringify(replacement)} got ${response.statusCode}: ${response.body}`);
        else if (response.statusCode === 400 && response.json<{ Error: string }>().Error === '') t.fail(`${path.join('.')}: a 400 without a message`);
      }
    }
    t.ok((statuses.get(400) ?? 0) > 0 && (statuses.get(200) ?? 0) > 0, `statuses: ${JSON.stringify([...statuses])}`);
  });
}
