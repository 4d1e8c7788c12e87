#!/usr/bin/env node
import { unsupportedNodeReason } from './node-version.js';

// The only place that touches process: signals, exit code and the real streams.
// The version check comes first, and everything else is imported after it: a static import would load (and
// evaluate) the commands before this line runs, and on an old Node.js a dependency warns or fails first.
const unsupported = unsupportedNodeReason(process.version);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}
const [{ commands }, { dispatch }, { ttyTerminal }, { readVersion }] = await Promise.all([
  import('./commands.js'), import('./dispatch.js'), import('./terminal.js'), import('./version.js'),
]);
const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', () => { resolve(); });
  process.once('SIGTERM', () => { resolve(); });
});
const terminal = ttyTerminal(process.stdin, process.stdout);
const code = await dispatch(process.argv.slice(2), commands, {
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
