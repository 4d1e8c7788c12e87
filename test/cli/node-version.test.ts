import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { minimumNodeMajor, unsupportedNodeReason } from '../../cli/node-version.js';
import { runFromSource } from '../support/run-from-source.js';

void t.test('Node.js 20 and 21 are refused in one line that names the version', (t) => {
  t.equal(unsupportedNodeReason('v20.20.2'), 'nodesmith needs Node.js 22 or newer; this is v20.20.2');
  t.equal(unsupportedNodeReason('v21.7.3'), 'nodesmith needs Node.js 22 or newer; this is v21.7.3');
  t.equal(unsupportedNodeReason('v18.0.0'), 'nodesmith needs Node.js 22 or newer; this is v18.0.0');
  t.end();
});

void t.test('Node.js 22 and later run', (t) => {
  for (const version of ['v22.0.0', 'v22.23.3', 'v24.21.0', 'v100.1.2']) t.equal(unsupportedNodeReason(version), undefined, version);
  t.end();
});

void t.test('a version that does not parse is refused rather than trusted', (t) => {
  t.equal(unsupportedNodeReason('unknown'), 'nodesmith needs Node.js 22 or newer; this is unknown');
  t.end();
});

void t.test("package.json's engines name the same minimum", (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  t.equal(pkg.engines.node, `>=${String(minimumNodeMajor)}`);
  t.end();
});

const main = new URL('../../cli/main.ts', import.meta.url).pathname;
const recorder = new URL('./support/record-modules.ts', import.meta.url).pathname;
const pretend = new URL('./support/pretend-node-version.ts', import.meta.url).pathname;

/** Starts the CLI from source as if on `version`; its exit code, output and every module it loaded. */
function startAs(version: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string; modules: string[] } {
  const log = join(mkdtempSync(join(tmpdir(), 'nodesmith-modules-')), 'modules.txt');
  const result = spawnSync(process.execPath, [...runFromSource, '--import', recorder, '--import', pretend, main, ...args], {
    env: { ...process.env, NODESMITH_MODULE_LOG: log, NODESMITH_PRETEND_NODE_VERSION: version },
    encoding: 'utf8',
  });
  const modules = readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

void t.test('on Node.js 20 the CLI exits 1 with the one line, before loading any command or dependency', (t) => {
  const run = startAs('v20.19.0', ['run']);
  t.equal(run.status, 1);
  t.equal(run.stderr, 'nodesmith needs Node.js 22 or newer; this is v20.19.0\n');
  t.equal(run.stdout, '');
  t.ok(run.modules.some((m) => m.endsWith('/cli/node-version.ts')), 'the recorder saw the check load');
  t.same(run.modules.filter((m) => m.includes('/node_modules/') && !m.includes('/node_modules/tsx/')), [], 'no dependency was loaded');
  t.same(run.modules.filter((m) => /\/cli\/(dispatch|commands|run-command)\.ts$/.test(m)), [], 'no command was loaded');
  t.end();
});

void t.test('on Node.js 22 the same start goes on to the command', (t) => {
  const run = startAs('v22.0.0', ['--version']);
  t.equal(run.status, 0);
  t.match(run.stdout, /^nodesmith \d+\.\d+\.\d+/);
  t.equal(run.stderr, '');
  t.end();
});
