import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../stack/wait-for.js';
import { runFromSource } from '../support/run-from-source.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** `nodesmith <args>` from this checkout as a child process: what a container of the image would run. */
export class LocalNodesmith {
  readonly logPath: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, logPath: string) {
    this.logPath = logPath;
    this.#child = child;
  }

  /** Starts it and waits until `isReady` holds (the process exiting first is an error). */
  static async start(args: readonly string[], options: { logPath: string; env?: Readonly<Record<string, string>>; isReady: () => Promise<boolean> }): Promise<LocalNodesmith> {
    const log = createWriteStream(options.logPath, { flags: 'a' });
    const child = spawn(process.execPath, [...runFromSource, 'cli/main.ts', ...args], {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(options.env ?? {}) },
    });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const running = new LocalNodesmith(child, options.logPath);
    try {
      await waitFor(`nodesmith ${args[0] ?? ''} to be ready`, async () => {
        if (child.exitCode !== null) throw new Error(`nodesmith ${args[0] ?? ''} exited with ${String(child.exitCode)}: ${running.tail()}`);
        return (await options.isReady().catch(() => false)) ? true : undefined;
      }, { timeoutMs: 60_000 });
    } catch (error) {
      await running.stop();
      throw error;
    }
    return running;
  }

  tail(lines = 30): string {
    try {
      return readFileSync(this.logPath, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
