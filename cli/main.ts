#!/usr/bin/env node
import { commands } from './commands.js';
import { dispatch } from './dispatch.js';
import { runCommand } from './run-command.js';
import { ttyTerminal } from './terminal.js';
import { readVersion } from './version.js';

// The only place that touches process: signals, exit code and the real streams.
const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => { resolve(); });
  process.once('SIGTERM', () => { resolve(); });
});
const terminal = ttyTerminal(process.stdin, process.stdout);
const code = await dispatch(process.argv.slice(2), [runCommand(process.env), ...commands], {
  version: readVersion(),
  io: {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interrupted,
    env: process.env,
    ...(terminal === undefined ? {} : { terminal }),
  },
});
process.exitCode = code;
// Long-running commands (run, demo) resolve only after their own shutdown, so exiting here is safe
// and stops stray handles from a library keeping the process alive.
process.exit(code);
