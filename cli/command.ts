import type { CommandSpec } from './command-specs.js';
import type { Terminal } from './terminal.js';

/** A CLI subcommand: its name, a one-line summary for `--help`, and what it runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Resolves to the process exit code. */
  run(argv: readonly string[], io: CommandIo): Promise<number>;
}

/** Where a command writes; injected so tests can capture output without touching the process. */
export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves when the user asks the command to stop (Ctrl-C, SIGTERM). */
  readonly interrupted: Promise<void>;
  /** The process environment, read once in main.ts (KUBECONFIG, the in-cluster service address); none in tests. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Set when stdin and stdout are a terminal: for full-screen commands (`top`). */
  readonly terminal?: Terminal;
}

/**
 * A command whose run may throw: the error is printed as one line, "name: message", and the command exits with
 * `failureCode` (1 unless given), so a failing command never ends in a stack trace from main.ts.
 */
export function guardedCommand(spec: CommandSpec, run: Command['run'], failureCode = 1): Command {
  return {
    ...spec,
    async run(argv, io): Promise<number> {
      try {
        return await run(argv, io);
      } catch (error: unknown) {
        io.stderr(`${spec.name}: ${error instanceof Error ? error.message : String(error)}\n`);
        return failureCode;
      }
    },
  };
}
