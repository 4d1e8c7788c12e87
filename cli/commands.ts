import type { Command } from './command.js';
import { certsSpec, disruptionSpec, extenderSpec, planSpec, runSpec, topSpec, validateSpec, webhooksSpec, type CommandSpec } from './command-specs.js';

/** A command whose code is imported only when it runs (see command-specs.ts for why). */
function lazyCommand(spec: CommandSpec, load: () => Promise<Command>): Command {
  return { ...spec, run: async (argv, io) => (await load()).run(argv, io) };
}

/** Every subcommand, in the order `--help` lists them. Each issue that adds one registers it here. */
export const commands: readonly Command[] = [
  lazyCommand(runSpec, async () => (await import('./run-command.js')).runCommand),
  lazyCommand(validateSpec, async () => (await import('./validate-command.js')).validateCommand),
  lazyCommand(certsSpec, async () => (await import('./certs-command.js')).certsCommand),
  lazyCommand(webhooksSpec, async () => (await import('./webhooks-command.js')).webhooksCommand),
  lazyCommand(extenderSpec, async () => (await import('./extender-command.js')).extenderCommand),
  lazyCommand(planSpec, async () => (await import('./plan-command.js')).planCommand),
  lazyCommand(topSpec, async () => (await import('./top-command.js')).topCommand),
  lazyCommand(disruptionSpec, async () => (await import('./disruption-command.js')).disruptionCommand),
];
