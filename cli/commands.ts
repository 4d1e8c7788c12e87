import type { Command } from './command.js';

/** Every subcommand, in the order `--help` lists them. Each issue that adds one registers it here. */
export const commands: readonly Command[] = [];
