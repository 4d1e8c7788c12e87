import type { Command } from './command.js';
import { runSpec } from './command-specs.js';
import { parseRunFlags } from './run-flags.js';

/** Flags and environment are read once, in main.ts; the environment arrives through `io.env`. */
export const runCommand: Command = {
  ...runSpec,
  async run(argv, io): Promise<number> {
    let config;
    try {
      config = parseRunFlags(argv, io.env ?? {});
    } catch (error) {
      io.stderr(`run: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    if (Array.isArray(config)) {
      io.stderr(`run: invalid flags:\n${config.map((p) => `  ${p}`).join('\n')}\n`);
      return 2;
    }
    // Imported here, not at the top: the whole controller (AWS SDK, Kubernetes client) loads only for `run`.
    const { startNodesmith } = await import('./app.js');
    const running = await startNodesmith(config);
    await io.interrupted;
    await running.stop();
    return 0;
  },
};
