/** A CLI subcommand: its name, a one-line summary for `--help`, and what it runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Resolves to the process exit code. */
  run(argv: readonly string[], io: CommandIo): Promise<number>;
}

import type { Terminal } from './terminal.js';

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
