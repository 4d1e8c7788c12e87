import type { Command } from './command.js';
import { parseRunFlags, runUsage } from './run-flags.js';

/** Flags and environment are read once, in main.ts; this command receives the environment explicitly. */
export function runCommand(env: Readonly<Record<string, string | undefined>>): Command {
  return {
    name: 'run',
    summary: 'Run the provisioner, the scheduler extender and the admission webhooks in one process (--components selects)',
    usage: runUsage,
    async run(argv, io): Promise<number> {
      let config;
      try {
        config = parseRunFlags(argv, env);
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
}
