import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One real process of the stack (etcd, kube-apiserver, …), with its log kept in a file. */
export interface Component {
  readonly name: string;
  readonly logPath: string;
  readonly process: ChildProcess;
  /** The last `lines` lines of the log, for failure reports. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<void>;
  /** Rejects if the process exits before `ready` resolves, so a crash shows its log at once. */
  exited: Promise<number | null>;
}

export interface ComponentSpec {
  name: string;
  command: string;
  args: readonly string[];
  logDir: string;
  env?: NodeJS.ProcessEnv;
  /** How long stop() waits after SIGTERM before SIGKILL (default 5 s); short for a process known to ignore SIGTERM. */
  graceMs?: number;
}

const liveComponents = new Set<Component>();

// A test that throws or a Ctrl-C must not leave etcd or an API server behind.
function killAllSync(): void {
  for (const c of liveComponents) {
    try {
      if (c.process.pid !== undefined) process.kill(-c.process.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.once('exit', killAllSync);

export function startComponent(spec: ComponentSpec): Component {
  const logPath = join(spec.logDir, `${spec.name}.log`);
  const log = createWriteStream(logPath, { flags: 'a' });
  // detached: the component leads its own process group, so stop() reaches its children too.
  const child = spawn(spec.command, spec.args, {
    env: spec.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  // Settled once what the process wrote is in its log file: 'exit' can come before its output has been read from
  // the pipes, and before the log file is even open, so a component that failed at once (etcd on a port another
  // stack took) showed "(no log)", and its "address already in use" was not seen to start it on new ports
  // (fresh-ports.ts). 'close' follows the last output; a grandchild holding the pipes open delays it 1 s at most.
  const exited = new Promise<number | null>((resolve) => {
    const flushed = (code: number | null): void => { log.write('', () => { resolve(code); }); };
    child.once('exit', (code) => {
      const late = setTimeout(() => { flushed(code); }, 1_000);
      child.once('close', () => { clearTimeout(late); flushed(code); });
    });
    child.once('error', (error) => { log.write(`spawn failed: ${error.message}\n`, () => { resolve(-1); }); });
  });
  const component: Component = {
    name: spec.name,
    logPath,
    process: child,
    exited,
    tail: (lines = 40) => tailFile(logPath, lines),
    stop: async () => {
      liveComponents.delete(component);
      if (child.exitCode !== null || child.pid === undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => { signalGroup(child.pid ?? 0, 'SIGKILL'); }, spec.graceMs ?? 5_000);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
  liveComponents.add(component);
  return component;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

function tailFile(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines - 1).join('\n');
  } catch {
    return '(no log)';
  }
}
