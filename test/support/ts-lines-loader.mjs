// Registered after tsx (--import=tsx --import=./test/support/ts-lines-loader.mjs), so its load hook runs first.
import { register } from 'node:module';

register('./ts-lines-hooks.mjs', import.meta.url);
