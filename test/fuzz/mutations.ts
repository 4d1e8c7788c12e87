// fast-check arbitraries that mutate real requests: structure-aware (a field removed, a wrong type, huge and
// negative numbers, odd strings, nesting up to 20,000 levels deep) and byte-level (truncated, a byte flipped,
// trailing garbage).
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Seed and run count for every fuzz property: fixed and small in CI, larger behind NODESMITH_FUZZ_RUNS. */
export function fuzzParameters(defaultRuns: number): { seed: number; numRuns: number; endOnFailure: true } {
  const runs = Number(process.env['NODESMITH_FUZZ_RUNS'] ?? defaultRuns);
  const seed = Number(process.env['NODESMITH_FUZZ_SEED'] ?? 17);
  return { seed, numRuns: Number.isFinite(runs) && runs > 0 ? runs : defaultRuns, endOnFailure: true };
}

/** A value nested `depth` levels deep, as arrays or objects. */
export function nested(depth: number, asObject: boolean): Json {
  let value: Json = 'bottom';
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

/**
 * Stands in for a value nested `depth` levels deep, deeper than JSON.stringify can write (its recursion overflows
 * near 5,000 levels): serialised() splices the nested text in where it stands.
 */
function deeplyNested(depth: number): Json {
  return `\u0000nested:${String(depth)}`;
}

/** The JSON text of a mutant, each deeplyNested() stand-in replaced by the nested value it stands for. */
export function serialised(value: Json): string {
  return JSON.stringify(value).replace(/"\\u0000nested:(\d+)"/g, (_stand, depth: string) => `${'{"a":'.repeat(Number(depth))}0${'}'.repeat(Number(depth))}`);
}

const oddStrings = [
  '', ' ', '\u0000', '\uFFFF', '\uD800', '💥🔥', 'a'.repeat(70_000), '-1', '1e309', 'NaN', 'null', '0x10', '1.5.2Gi',
  '../../etc/passwd', '${jndi:x}', '%s%n', '<script>', 'launchable-', 'system:serviceaccount:nodesmith:nodesmith',
  'karpenter.sh/nodepool', 'kubernetes.io/arch', '*', 'In', 'Exists',
];

/** Values that stand in for a field: every JSON type, edge numbers, odd strings, deep nesting. */
export const oddValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, -0.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 1, 0.1),
  fc.integer().map((n): Json => n),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n): Json => n),
  fc.constantFrom<Json>(...oddStrings),
  fc.string({ maxLength: 40 }).map((s): Json => s),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s): Json => s),
  fc.constantFrom<Json>([], {}, [null], { '': null }, JSON.parse('{"__proto__": {"polluted": true}}') as Json, { constructor: { prototype: { x: 1 } } }),
  fc.integer({ min: 50, max: 3000 }).chain((depth) => fc.boolean().map((asObject) => nested(depth, asObject))),
  fc.integer({ min: 3000, max: 20_000 }).map(deeplyNested),
  fc.jsonValue({ maxDepth: 3 }).map((v) => v as Json),
);

/** Every path to a value inside `value` (as key lists), the root included; deep trees are cut at `maxDepth`. */
export function pathsOf(value: Json, maxDepth = 12, prefix: readonly string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || prefix.length >= maxDepth) return [[...prefix]];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return [[...prefix], ...entries.flatMap(([key, child]) => pathsOf(child, maxDepth, [...prefix, key]))];
}

type Edit = { readonly op: 'remove' } | { readonly op: 'set'; readonly value: Json } | { readonly op: 'duplicate-into-array' };

function edited(value: Json, path: readonly string[], edit: Edit): Json | undefined {
  const [head, ...rest] = path;
  if (head === undefined) {
    if (edit.op === 'remove') return undefined;
    return edit.op === 'set' ? edit.value : [value, value];
  }
  if (Array.isArray(value)) {
    const index = Number(head);
    const child = edited(value[index] ?? null, rest, edit);
    return child === undefined ? value.filter((_, i) => i !== index) : value.map((v, i) => (i === index ? child : v));
  }
  if (value === null || typeof value !== 'object') return value;
  const child = edited(value[head] ?? null, rest, edit);
  const entries = Object.entries(value).filter(([key]) => key !== head);
  return Object.fromEntries(child === undefined ? entries : [...entries, [head, child]]);
}

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Edit>({ op: 'remove' }) },
  { weight: 4, arbitrary: oddValue.map((value): Edit => ({ op: 'set', value })) },
  { weight: 1, arbitrary: fc.constant<Edit>({ op: 'duplicate-into-array' }) },
);

/** One to three structure-aware edits of `base`, each at a path that exists in it. */
export function structuralMutant(base: Json): fc.Arbitrary<Json> {
  const paths = pathsOf(base);
  return fc.array(fc.tuple(fc.constantFrom(...paths), edit), { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce<Json>((value, [path, e]) => edited(value, path, e) ?? null, base));
}

/** Byte-level damage to a serialised request: truncated, a byte replaced, garbage appended, or bytes spliced in. */
export function byteMutant(text: string): fc.Arbitrary<Buffer> {
  const bytes = Buffer.from(text);
  return fc.oneof(
    fc.nat({ max: bytes.length }).map((n) => bytes.subarray(0, n)),
    fc.tuple(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
      const copy = Buffer.from(bytes);
      copy[at] = byte;
      return copy;
    }),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((garbage) => Buffer.concat([bytes, garbage])),
    fc.tuple(fc.nat({ max: bytes.length }), fc.uint8Array({ minLength: 1, maxLength: 16 }))
      .map(([at, inserted]) => Buffer.concat([bytes.subarray(0, at), inserted, bytes.subarray(at)])),
  );
}

/** A request body: mostly structure-aware mutants of `base`, serialised, and some byte-level ones. */
export function mutatedBody(base: Json): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    { weight: 3, arbitrary: structuralMutant(base).map(serialised) },
    { weight: 1, arbitrary: byteMutant(JSON.stringify(base)) },
  );
}

/** Runs a property and reports a failure in a few lines (the counterexample cut short), not pages of it. */
export async function checkProperty<T>(property: fc.IAsyncPropertyWithHooks<[T]> | fc.IAsyncProperty<[T]>, parameters: fc.Parameters<[T]>): Promise<string | undefined> {
  const details = await fc.check(property, parameters);
  if (!details.failed) return undefined;
  const example = JSON.stringify(details.counterexample?.[0] instanceof Buffer ? details.counterexample[0].toString() : details.counterexample?.[0]);
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `failed after ${String(details.numRuns)} runs (seed ${String(details.seed)}, path "${details.counterexamplePath ?? ''}"): ${error.slice(0, 600)}\n  counterexample: ${example.slice(0, 600)}${example.length > 600 ? '…' : ''}`;
}
