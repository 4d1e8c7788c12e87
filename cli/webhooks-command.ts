import { parseArgs } from 'node:util';
import { defaultExcludedNamespaces, defaultProductServiceAccount } from '../webhooks/app.js';
import { defaultWebhookPort, serveWebhooks, type ServeWebhooksOptions } from '../webhooks/serve.js';
import { guardedCommand, type Command, type CommandIo } from './command.js';
import { admissionGatesOf, featureGatesText } from './feature-gates.js';
import { webhooksSpec } from './command-specs.js';

const options = {
  host: { type: 'string', default: '0.0.0.0' },
  port: { type: 'string', default: String(defaultWebhookPort) },
  'cert-file': { type: 'string' },
  'key-file': { type: 'string' },
  'product-service-account': { type: 'string', default: defaultProductServiceAccount },
  'excluded-namespaces': { type: 'string', default: defaultExcludedNamespaces.join(',') },
  'log-level': { type: 'string', default: 'info' },
  // The controller's own gates, so admission refuses exactly what the controller would not serve.
  'feature-gates': { type: 'string', default: '' },
} as const;

/** Parses every flag once and reports every problem together (fail fast, but completely). */
export function parseWebhookFlags(argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): ServeWebhooksOptions | string[] {
  const { values } = parseArgs({ args: [...argv], options });
  const problems: string[] = [];
  const gates = admissionGatesOf(featureGatesText(values['feature-gates'], env), problems);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`--port must be 0–65535, got "${values.port}"`);
  if (values['cert-file'] === undefined) problems.push('--cert-file is required (PEM serving certificate)');
  if (values['key-file'] === undefined) problems.push('--key-file is required (PEM private key)');
  if (!values['product-service-account'].startsWith('system:serviceaccount:')) {
    problems.push('--product-service-account must look like system:serviceaccount:<namespace>:<name>');
  }
  if (problems.length > 0) return problems;
  return Object.freeze({
    host: values.host,
    port,
    certFile: values['cert-file'] ?? '',
    keyFile: values['key-file'] ?? '',
    productServiceAccount: values['product-service-account'],
    excludedNamespaces: values['excluded-namespaces'].split(',').map((s) => s.trim()).filter((s) => s !== ''),
    gates,
    logger: { level: values['log-level'] },
  });
}

async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = parseWebhookFlags(argv, io.env);
  if (Array.isArray(parsed)) {
    io.stderr(`webhooks: invalid flags:\n${parsed.map((p) => `  ${p}`).join('\n')}\n`);
    return 2;
  }
  const running = await serveWebhooks(parsed);
  io.stdout(`nodesmith webhooks listening on ${running.url}\n`);
  await io.interrupted;
  // return503OnClosing answers late requests with 503 while in-flight reviews finish.
  await running.close();
  return 0;
}

export const webhooksCommand: Command = guardedCommand(webhooksSpec, run);
