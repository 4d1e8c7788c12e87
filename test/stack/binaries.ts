import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs one of the stack's build scripts (test/stack/build-*.sh: each builds once and caches by version outside the
 * repo) and answers the bin directory it prints on its last line.
 */
export async function builtBinDir(script: string, args: readonly string[] = [], env: Readonly<Record<string, string>> = {}): Promise<string> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const { stdout } = await run('bash', [path, ...args], { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 });
  const bin = stdout.trim().split('\n').at(-1);
  if (bin === undefined || bin === '') throw new Error(`${script} printed no bin directory`);
  return bin;
}

/** Where the real components live: built once by build-stack.sh, cached by version outside the repo. */
export function stackBinaries(): Promise<string> {
  return builtBinDir('build-stack.sh');
}
