// Loads HiGHS (the highs package: the HiGHS LP solver compiled to WebAssembly) for the benchmark's bounds.
// Its typings declare the CommonJS build's `module.exports.default`, which an ES module import does not see under
// NodeNext (the ESM build exports the loader itself), so the CommonJS build is loaded by require.
import { createRequire } from 'node:module';
import type { Highs, InitOptions } from 'highs';

/** Instantiates the solver once; each `solve` call is synchronous and independent. */
export async function loadLpSolver(): Promise<Highs> {
  const load = createRequire(import.meta.url)('highs') as (options?: InitOptions) => Promise<Highs>;
  return load();
}
