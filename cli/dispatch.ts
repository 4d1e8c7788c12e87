import type { Command, CommandIo } from './command.js';

export const productName = 'nodesmith';

function helpText(commands: readonly Command[], version: string): string {
  const width = Math.max(0, ...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `${productName} ${version}: just-in-time Kubernetes nodes on EC2, placed by the real kube-scheduler.`,
    '',
    `Usage: ${productName} <command> [flags]`,
    '',
    'Commands:',
    ...lines,
    '',
    'Flags:',
    '  -h, --help     show this help (or a command\'s help: <command> --help)',
    '  -v, --version  print the version',
    '',
  ].join('\n');
}

/** Routes argv to a subcommand; returns the exit code. Never exits the process itself. */
export async function dispatch(
  argv: readonly string[],
  commands: readonly Command[],
  options: { version: string; io: CommandIo },
): Promise<number> {
  const { io, version } = options;
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout(helpText(commands, version));
    return first === undefined ? 2 : 0;
  }
  if (first === '-v' || first === '--version') {
    io.stdout(`${productName} ${version}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === first);
  if (command === undefined) {
    io.stderr(`${productName}: unknown command "${first}". Known commands: ${commands.map((c) => c.name).join(', ')}.\nRun "${productName} --help" for usage.\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`${command.summary}\n\nUsage: ${productName} ${command.name} ${command.usage}\n`);
    return 0;
  }
  return command.run(rest, io);
}
