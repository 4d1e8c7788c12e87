/**
 * The `node` flags that run this checkout's TypeScript from source, as every test process itself runs it
 * (ts-resolve.mjs: Node's own type stripping, tsx on a Node.js without it). For the processes tests start:
 * `spawn(process.execPath, [...runFromSource, 'cli/main.ts', ...args])`.
 */
export const runFromSource: readonly string[] = ['--import', new URL('./ts-resolve.mjs', import.meta.url).href];
