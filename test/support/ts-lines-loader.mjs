// Registered after tsx (--import=tsx --import=./test/support/ts-lines-loader.mjs), so its load hook runs first.
import { register } from 'node:module';

// Only where coverage is taken: a second chain of module hooks costs every process about a CPU-second on the e2e
// files' imports even when it does nothing, and without coverage tsx's own output runs the same code.
if (process.env['TAP_DISABLE_COVERAGE'] !== '1') register('./ts-lines-hooks.mjs', import.meta.url);
