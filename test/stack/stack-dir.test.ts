import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runFromSource } from '../support/run-from-source.js';

const stackDir = fileURLToPath(new URL('./stack-dir.ts', import.meta.url));

/**
 * A process that makes a stack directory the way startStack does, says the stack stopped (or not), and exits with
 * `code`; resolves to the directory it made.
 */
function processThatMakesADir(code: number, options: { stopped: boolean; env?: Record<string, string> }): Promise<string> {
  const script = `
    const { makeStackDir, stackStopped } = await import(${JSON.stringify(stackDir)});
    const { writeFile } = await import('node:fs/promises');
    const dir = await makeStackDir();
    await writeFile(dir + '/etcd.log', 'a log to read after a failure');
    ${options.stopped ? 'stackStopped(dir);' : ''}
    console.log(dir);
    process.exitCode = ${String(code)};`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...runFromSource, '--input-type=module', '-e', script], { env: { ...process.env, NODESMITH_KEEP_STACK: '', ...options.env } }, (error, stdout) => {
      if (error !== null && error.code !== code) reject(new Error(`the process failed: ${error.message}`, { cause: error }));
      else resolve(stdout.trim());
    });
  });
}

void t.test('a stack that stopped in a process that succeeded leaves no directory behind', async (t) => {
  const dir = await processThatMakesADir(0, { stopped: true });
  t.match(dir, /nodesmith-stack-/);
  t.notOk(existsSync(dir), `${dir} was removed at exit`);
});

void t.test('a failed test file keeps its stack\'s directory, logs and all, so the failure can be read', async (t) => {
  const dir = await processThatMakesADir(1, { stopped: true });
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
  t.ok(existsSync(`${dir}/etcd.log`), `${dir} is kept`);
});

void t.test('a stack that never stopped cleanly keeps its directory, even when the process succeeds', async (t) => {
  const dir = await processThatMakesADir(0, { stopped: false });
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
  t.ok(existsSync(`${dir}/etcd.log`), `${dir} is kept`);
});

void t.test('NODESMITH_KEEP_STACK=1 keeps every directory', async (t) => {
  const dir = await processThatMakesADir(0, { stopped: true, env: { NODESMITH_KEEP_STACK: '1' } });
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
  t.ok(existsSync(`${dir}/etcd.log`), `${dir} is kept`);
});
