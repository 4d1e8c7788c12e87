// Builds a command's module as CommonJS scripts that cli/cached-script.ts runs with their V8 code caches, for
// build/bundles.mjs. For FILE (the module commands.ts imports, e.g. dist/cli/validate-command.js) it writes:
//  - FILE.cjs (the entry's code) and APART/NAME.cjs, one script for each module the entry imports dynamically
//    (validate's kinds: a run loads only the kinds its files hold);
//  - FILE itself, a small ES module that runs FILE.cjs through cli/cached-script.ts and exports what the entry does;
//  - SCRIPT.cache beside each script: the build runs the command once on a warm-up input, then keeps the V8 code
//    of every function that run compiled. V8 compiles a function on its first call, and for `nodesmith validate`
//    that was about a fifth of its start-up (DECISIONS.md, "validate loads only its own code, and only the kinds
//    it meets").
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Leaves each dynamic import outside the script, as `./FOLDER/NAME.cjs`, and records its source (NAME → file) in
 * `entries`, to be a script of its own. With dynamic import unsupported, esbuild writes `require()` for them.
 */
function dynamicImportsApart(root, folder, entries) {
  return {
    name: 'dynamic-imports-apart',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const source = relative(root, join(args.resolveDir, args.path.replace(/\.js$/, '.ts')));
        const name = basename(source, '.ts');
        if (entries.has(name) && entries.get(name) !== source) throw new Error(`two dynamic imports are both ${name}: ${entries.get(name)}, ${source}`);
        entries.set(name, source);
        return { path: `./${folder}/${name}.cjs`, external: true };
      });
    },
  };
}

/** The entry's export names, from an ES module build of it alone (its dynamic imports left out, nothing written). */
async function exportNames(root, entry, options) {
  const external = { name: 'external', setup(b) { b.onResolve({ filter: /^\./ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined)); } };
  const { metafile } = await build({ ...options, entryPoints: [entry], format: 'esm', write: false, metafile: true, outfile: join(root, 'exports.js'), plugins: [external] });
  return Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined)?.exports ?? [];
}

/** FILE: runs the script and exports its names, plus the loader's cache writer and record (the warm-up, the tests). */
async function writeStub({ root, loader, target, script, names, options }) {
  const contents = [
    `import { runCachedScript } from './${loader}';`,
    `const script = runCachedScript(new URL('./${basename(script)}', import.meta.url));`,
    ...names.map((n) => `export const ${n} = script.${n};`),
    `export { scriptsRun, writeScriptCaches } from './${loader}';`,
  ].join('\n');
  await build({
    absWorkingDir: root, stdin: { contents, resolveDir: root, sourcefile: `${basename(target)} (stub)`, loader: 'js' },
    outfile: target, bundle: true, platform: 'node', format: 'esm', target: options.target, logLevel: 'warning',
  });
}

/** Runs the command once on the warm-up input, then writes each script's cache; every script must have run. */
async function warmUp({ target, warm, expected }) {
  const stub = await import(pathToFileURL(target).href);
  const quiet = { stdout: () => true, stderr: () => true, interrupted: new Promise(() => undefined) };
  await stub[warm.export].run(warm.args, quiet);
  const ran = new Set(stub.scriptsRun().map((s) => s.file));
  const missed = expected.filter((f) => !ran.has(f));
  if (missed.length > 0) throw new Error(`the warm-up (${warm.args.join(' ')}) never loaded ${missed.join(', ')}: add an object it checks`);
  stub.writeScriptCaches();
}

/**
 * Builds `entry` as cached scripts for the module at `target` (absolute). `options`: esbuild's, as for an ES module
 * bundle; `apart`: the folder of the dynamically imported scripts; `warm`: `{ export, args }`, the command to run.
 */
export async function bundleCachedScript({ root, entry, target, options, loader, apart, warm }) {
  const dir = dirname(target);
  const script = join(dir, `${basename(target, extname(target))}.cjs`);
  // Emptied first, so a script removed since the last build, or a cache of an older one, does not stay behind.
  rmSync(join(dir, apart), { recursive: true, force: true });
  rmSync(`${script}.cache`, { force: true });
  // A script has no import.meta: the loader passes the script's URL as `importMetaUrl` (createRequire needs it).
  const scriptOptions = { ...options, format: 'cjs', supported: { 'dynamic-import': false }, define: { 'import.meta.url': 'importMetaUrl' } };
  const entries = new Map();
  await build({ ...scriptOptions, entryPoints: [entry], outfile: script, plugins: [dynamicImportsApart(root, apart, entries)] });
  const scripts = [script];
  for (const [name, source] of entries) {
    scripts.push(join(dir, apart, `${name}.cjs`));
    await build({ ...scriptOptions, entryPoints: [source], outfile: scripts.at(-1) });
  }
  await writeStub({ root, loader, target, script, names: await exportNames(root, entry, options), options });
  await warmUp({ target, warm, expected: scripts });
}
