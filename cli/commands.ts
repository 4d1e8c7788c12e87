import type { Command } from './command.js';
import { certsCommand } from './certs-command.js';
import { extenderCommand } from './extender-command.js';
import { planCommand } from './plan-command.js';
import { validateCommand } from './validate-command.js';
import { webhooksCommand } from './webhooks-command.js';

/** Every subcommand, in the order `--help` lists them. Each issue that adds one registers it here. */
export const commands: readonly Command[] = [
  validateCommand,
  certsCommand,
  webhooksCommand,
  extenderCommand,
  planCommand,
];
