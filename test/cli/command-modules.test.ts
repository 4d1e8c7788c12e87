// Each nodesmith process runs one command, so a module only another command imports is start-up paid for nothing.
// Issue 36: `validate` had gone from 1.9× to 4.3× a bare `node -e 0`, partly because main.ts imported `run`'s flag
// parsing (and with it the consolidation and metrics flags) for every command. Owners come from the import graph
// (support/command-graph.ts), so a command added to commands.ts is covered without touching this file.
import t from 'tap';
import { commandModules, foreignTo, packageOf } from './support/command-graph.js';
import { modulesLoadedBy } from './support/modules-loaded.js';

const root = new URL('../..', import.meta.url).href;
const graph = await commandModules();
const validate = 'cli/validate-command.ts';

/** A loaded module's URL as the graph names it: a repository path or a package name. */
function graphName(url: string): string {
  return packageOf(url) ?? (url.startsWith(root) ? url.slice(root.length) : url);
}

/** Runs the CLI and returns its exit code, what it loaded, and which of those belong only to other commands. */
function loadsOf(args: readonly string[], command: string | undefined): { status: number | null; loaded: Set<string>; foreign: string[] } {
  const { status, modules } = modulesLoadedBy(args);
  const loaded = new Set(modules.map(graphName));
  const notOurs = foreignTo(graph, command);
  return { status, loaded, foreign: [...loaded].filter((m) => notOurs.has(m)).sort() };
}

void t.test('commands.ts imports every command module, each when it is dispatched', (t) => {
  t.ok(graph.commands.size >= 8, `${String(graph.commands.size)} commands`);
  t.same(graph.dispatched, [...graph.commands.keys()].sort());
  t.end();
});

void t.test('the import graph knows who owns the libraries validate never uses', (t) => {
  const unused = ['cli/run-flags.ts', 'cli/app.ts', '@aws-sdk/client-ec2', '@peculiar/x509', 'fastify', 'pino', 'prom-client', 'undici'];
  const foreign = foreignTo(graph, validate);
  t.same(unused.filter((m) => !foreign.has(m)), [], 'each belongs to another command');
  t.end();
});

void t.test('validate loads none of another command\'s modules, nor a library only they use', (t) => {
  const { status, loaded, foreign } = loadsOf(['validate', '-f', 'manifests/examples'], validate);
  t.equal(status, 0);
  t.ok(loaded.has(validate) && loaded.has('yaml'), 'the recorder saw validate and its YAML parser load');
  t.same(foreign, []);
  t.end();
});

void t.test('plan loads none of another command\'s modules', (t) => {
  const { status, loaded, foreign } = loadsOf(['plan', '-f', 'manifests/examples'], 'cli/plan-command.ts');
  t.equal(status, 0);
  t.ok(loaded.has('cli/plan-command.ts'), 'the recorder saw plan load');
  t.same(foreign, []);
  t.end();
});

for (const flag of ['--version', '--help']) {
  void t.test(`${flag} loads no command's modules, only the CLI's shell`, (t) => {
    const { status, loaded, foreign } = loadsOf([flag], undefined);
    t.equal(status, 0);
    t.ok(loaded.has('cli/dispatch.ts'), 'the recorder saw the CLI load');
    t.same(foreign, []);
    t.end();
  });
}
