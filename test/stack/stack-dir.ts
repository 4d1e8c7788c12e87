import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stack's temporary directory (certificates, configs, every component's log, etcd's data: hundreds of MB each)
 * is removed when the process that made it exits with code 0, and only if the stack stopped cleanly. A failed test
 * (tap exits its file's process non-zero) or a stack that did not stop keeps its directory, so its logs can be read;
 * `NODESMITH_KEEP_STACK=1` keeps every one. A directory a caller passed in (`StackOptions.dir`) is never removed.
 */
const keepStackVariable = 'NODESMITH_KEEP_STACK';

const stoppedCleanly = new Set<string>();
const made = new Set<string>();

export async function makeStackDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-stack-'));
  made.add(dir);
  return dir;
}

/** Called once every component of the stack in `dir` has stopped: the directory may go when the process succeeds. */
export function stackStopped(dir: string): void {
  if (made.has(dir)) stoppedCleanly.add(dir);
}

/** Which directories go at exit with this code, in this environment. */
function dirsToRemove(code: number, env: Readonly<Record<string, string | undefined>>): string[] {
  return code !== 0 || env[keepStackVariable] === '1' ? [] : [...stoppedCleanly];
}

// Synchronous, at exit: by then tap has set the file's exit code from its results.
process.once('exit', (code) => {
  for (const dir of dirsToRemove(code, process.env)) rmSync(dir, { recursive: true, force: true });
});
