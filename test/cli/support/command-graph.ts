// Which modules belong to which CLI command, read from the source's import graph: esbuild resolves every import of
// cli/main.ts as the runtime would (a type-only import is erased, a `.js` specifier finds its `.ts`) and lists them
// in its metafile. Packages stay unresolved (`packages: 'external'`), so a dependency appears under its name.
// A command is a `cli/*-command.ts` module, wherever it is imported from: one the shell imports is still a command.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

interface Edge { readonly path: string; readonly kind: string; readonly external?: boolean }
type Graph = ReadonlyMap<string, readonly Edge[]>;

const root = new URL('../../..', import.meta.url).pathname;
const main = 'cli/main.ts';
const commandList = 'cli/commands.ts';
const commandFiles = readdirSync(new URL('cli', `file://${root}`)).filter((f) => f.endsWith('-command.ts')).map((f) => `cli/${f}`);

/** A package's name from a bare specifier or a path or URL through node_modules; undefined for anything else. */
export function packageOf(specifierOrUrl: string): string | undefined {
  const inModules = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(specifierOrUrl);
  if (inModules !== null) return inModules[1];
  // Relative and absolute paths, file: and node: URLs are not packages.
  if (/^[./]|^[a-z]+:/.test(specifierOrUrl)) return undefined;
  return /^(?:@[^/]+\/)?[^/]+/.exec(specifierOrUrl)?.[0];
}

/** What a module is called in this graph: a repository path (`cli/run-flags.ts`) or a package name (`fastify`). */
function nodeOf(edge: Edge): string | undefined {
  if (edge.external !== true) return edge.path;
  return edge.path.startsWith('node:') ? undefined : packageOf(edge.path);
}

async function importGraph(): Promise<Graph> {
  const result = await build({
    absWorkingDir: root, entryPoints: [main], bundle: true, write: false, metafile: true, outdir: 'unused',
    platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent',
  });
  return new Map(Object.entries(result.metafile.inputs).map(([path, input]) => [path, input.imports]));
}

/**
 * Every module reachable from `roots`, following static imports, and dynamic ones too when `dynamic` is set; a
 * module in `stop` is neither entered nor counted.
 */
function closure(graph: Graph, roots: readonly string[], dynamic: boolean, stop: ReadonlySet<string> = new Set()): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (seen.has(next) || stop.has(next)) continue;
    seen.add(next);
    for (const edge of graph.get(next) ?? []) {
      const node = nodeOf(edge);
      if (node !== undefined && (dynamic || edge.kind !== 'dynamic-import')) queue.push(node);
    }
  }
  return seen;
}

/** The CLI's modules split by owner. */
export interface CommandModules {
  /** What every start may load: main.ts, what it imports and their static imports, up to any command module. */
  readonly shell: ReadonlySet<string>;
  /** Each command module, with everything it may import, now or later. */
  readonly commands: ReadonlyMap<string, ReadonlySet<string>>;
  /** The command modules commands.ts imports on dispatch (dynamically, so that only the one that runs loads). */
  readonly dispatched: readonly string[];
}

export async function commandModules(): Promise<CommandModules> {
  const graph = await importGraph();
  const commands = new Set(commandFiles);
  const shellRoots = [main, ...(graph.get(main) ?? []).flatMap((e) => nodeOf(e) ?? [])];
  return {
    shell: closure(graph, shellRoots, false, commands),
    commands: new Map(commandFiles.map((entry) => [entry, closure(graph, [entry], true)])),
    dispatched: (graph.get(commandList) ?? []).filter((e) => e.kind === 'dynamic-import').map((e) => e.path).sort(),
  };
}

/** Modules only other commands load: neither the shell nor anything `command` (a command module path) may import. */
export function foreignTo(modules: CommandModules, command: string | undefined): Set<string> {
  const own = command === undefined ? new Set<string>() : (modules.commands.get(command) ?? new Set<string>());
  const foreign = new Set<string>();
  for (const [entry, reach] of modules.commands) {
    if (entry === command) continue;
    for (const m of reach) if (!own.has(m) && !modules.shell.has(m)) foreign.add(m);
  }
  return foreign;
}
