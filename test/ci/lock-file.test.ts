// The committed package-lock.json must be what a fresh `npm install` writes, or every new clone rewrites it. What
// npm adds back is the entries a lock left out, above all other platforms' optional bindings (unrs-resolver's,
// once): so every dependency a locked package declares, optional ones included, must resolve to a locked entry.
// .ci/run also checks the whole file against `npm install --package-lock-only`.
import { readFileSync } from 'node:fs';
import t from 'tap';

interface LockedPackage {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}
interface Lock { readonly lockfileVersion: number; readonly packages: Readonly<Record<string, LockedPackage>> }

/** Where Node's resolution would find `name` from the package at `path`: its own node_modules, then each parent's. */
function resolves(lock: Lock, path: string, name: string): boolean {
  for (let dir = path; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    if (lock.packages[`${dir === '' ? '' : `${dir}/`}node_modules/${name}`] !== undefined) return true;
    if (dir === '') return false;
  }
}

/** Every declared dependency, by the package that declares it, that no locked entry satisfies. */
function unlockedDependencies(lock: Lock): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const declared = { ...entry.dependencies, ...entry.optionalDependencies, ...(path === '' ? entry.devDependencies : {}) };
    for (const name of Object.keys(declared)) {
      if (!resolves(lock, path, name)) missing.push(`${path === '' ? '(root)' : path} -> ${name}`);
    }
  }
  return missing;
}

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as Lock;

void t.test('every dependency a locked package declares, other platforms\' optional ones included, is locked', (t) => {
  t.equal(lock.lockfileVersion, 3);
  t.same(unlockedDependencies(lock), []);
  t.end();
});

void t.test('a lock that left out an optional binding is caught', (t) => {
  const packages = {
    '': { devDependencies: { resolver: '^1.0.0' } },
    'node_modules/resolver': { optionalDependencies: { 'binding-linux': '1.0.0', 'binding-darwin': '1.0.0' } },
    'node_modules/resolver/node_modules/nested': { dependencies: { resolver: '^1.0.0' } },
    'node_modules/binding-linux': {},
  };
  t.same(unlockedDependencies({ lockfileVersion: 3, packages }), ['node_modules/resolver -> binding-darwin']);
  t.end();
});
