import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Recorded wire requests become unit-test fixtures. They are rewritten only on demand
 * (NODESMITH_RECORD_FIXTURES=1), so a normal run compares the live request's shape with the
 * committed one and fails if the real component started speaking differently.
 */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

export function recordOrLoadFixture(relative: string, live: unknown, record: boolean): unknown {
  const path = fixturePath(relative);
  if (record || !existsSync(path)) {
    writeFileSync(path, `${JSON.stringify(live, null, 2)}\n`);
    return live;
  }
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** The set of key paths of a JSON value, e.g. "Pod.metadata.name"; arrays contribute their first item. */
export function keyShape(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length > 0 ? keyShape(value[0], `${prefix}[]`) : [`${prefix}[]`];
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keyShape(v, prefix === '' ? k : `${prefix}.${k}`));
}
