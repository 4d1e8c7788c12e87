import { createHash } from 'node:crypto';

/**
 * JSON with sorted keys, so the same object hashes the same whatever order its keys arrived in (a kubectl apply, a
 * watch event, a restart). As Karpenter's hashstructure options do (`SlicesAsSets`, `IgnoreZeroValue`, `ZeroNil`):
 * arrays are sets (element order does not matter), and absent, null, empty-object and empty-array values are the
 * same as leaving the field out, so a round trip through the API server that adds `{}` or drops `[]` changes nothing.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonicalJson).filter((item): item is string => item !== undefined).sort();
    return items.length === 0 ? undefined : `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const fields = Object.keys(value).sort().flatMap((key) => {
      const text = canonicalJson((value as Record<string, unknown>)[key]);
      return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
    });
    return fields.length === 0 ? undefined : `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * SHA-256 of the canonical JSON, in hex. Always contains hex letters in practice, which tells it apart from a hash
 * Karpenter wrote (a decimal uint64), see `isForeignHash`.
 */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value) ?? '').digest('hex');
}

/**
 * A stamped hash that nodesmith did not compute: Karpenter's hashstructure writes a decimal number. Comparing it with
 * ours would mark every node drifted after a migration, so such a stamp is treated like another hash version.
 */
export function isForeignHash(stamped: string): boolean {
  return !/^[0-9a-f]{64}$/.test(stamped);
}
