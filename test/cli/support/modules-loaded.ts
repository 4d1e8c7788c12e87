// Runs the CLI from source with record-modules.ts preloaded and reads back every module the process resolved.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFromSource } from '../../support/run-from-source.js';

const main = new URL('../../../cli/main.ts', import.meta.url).pathname;
const recorder = new URL('./record-modules.ts', import.meta.url).pathname;

/** The CLI's exit code for `args`, and the URL of every module it resolved, in order. */
export function modulesLoadedBy(args: readonly string[]): { status: number | null; modules: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-modules-'));
  const log = join(dir, 'modules.txt');
  try {
    const result = spawnSync(process.execPath, [...runFromSource, '--import', recorder, main, ...args], {
      env: { ...process.env, NODESMITH_MODULE_LOG: log },
      encoding: 'utf8',
    });
    return { status: result.status, modules: readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
