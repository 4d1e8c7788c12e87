import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the real components live: built once by build-stack.sh, cached by version outside the repo. */
export async function stackBinaries(): Promise<string> {
  const script = fileURLToPath(new URL('./build-stack.sh', import.meta.url));
  const { stdout } = await run('bash', [script], { maxBuffer: 16 * 1024 * 1024 });
  const bin = stdout.trim().split('\n').at(-1);
  if (bin === undefined || bin === '') throw new Error('build-stack.sh printed no bin directory');
  return bin;
}
