import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { createServingCertificates, serviceDnsNames, type ServingCertificates } from '../webhooks/serving-certificates.js';
import { guardedCommand, type Command, type CommandIo } from './command.js';
import { certsSpec } from './command-specs.js';

export const defaultWebhookConfigFile = 'manifests/webhooks/webhook-configurations.yaml';

/** Joins YAML documents; a document that kept its own `---` marker gets no second one. */
export function joinDocuments(docs: readonly string[]): string {
  return docs.map((d, i) => (i === 0 || d.startsWith('---') ? d : `---\n${d}`)).join('');
}

/**
 * Sets `clientConfig.caBundle` of every webhook in every Mutating/ValidatingWebhookConfiguration
 * document, keeping comments and the order of everything else.
 */
export function injectCaBundle(yamlText: string, caPem: string): { text: string; webhooks: number } {
  const caBundle = Buffer.from(caPem).toString('base64');
  let webhooks = 0;
  const docs = parseAllDocuments(yamlText).map((doc) => {
    const kind: unknown = doc.get('kind');
    if (kind !== 'MutatingWebhookConfiguration' && kind !== 'ValidatingWebhookConfiguration') return doc.toString({ lineWidth: 0 });
    const list = doc.get('webhooks') as { items?: unknown[] } | undefined;
    (list?.items ?? []).forEach((_item, i) => {
      doc.setIn(['webhooks', i, 'clientConfig', 'caBundle'], caBundle);
      webhooks += 1;
    });
    return doc.toString({ lineWidth: 0 });
  });
  return { text: joinDocuments(docs), webhooks };
}

function tlsSecret(certs: ServingCertificates, namespace: string): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1', 'kind: Secret', 'type: kubernetes.io/tls',
    'metadata:', '  name: nodesmith-webhooks-tls', `  namespace: ${namespace}`,
    'data:', `  ca.crt: ${b64(certs.ca.cert)}`, `  tls.crt: ${b64(certs.serving.cert)}`, `  tls.key: ${b64(certs.serving.key)}`, '',
  ].join('\n');
}

const options = {
  'out-dir': { type: 'string', default: 'certs' },
  service: { type: 'string', default: 'nodesmith-webhooks' },
  namespace: { type: 'string', default: 'nodesmith' },
  'dns-name': { type: 'string', multiple: true },
  ip: { type: 'string', multiple: true },
  days: { type: 'string', default: '365' },
  'webhook-config': { type: 'string', default: defaultWebhookConfigFile },
  'secret-out': { type: 'string' },
} as const;

async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options });
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1) throw new Error(`--days must be a positive integer, got "${values.days}"`);
  const dnsNames = [...serviceDnsNames(values.service, values.namespace), ...(values['dns-name'] ?? [])];
  const certs = await createServingCertificates({ dnsNames, ipAddresses: values.ip ?? [], validDays: days, now: new Date() });
  await mkdir(values['out-dir'], { recursive: true });
  await writeFile(join(values['out-dir'], 'ca.crt'), certs.ca.cert);
  await writeFile(join(values['out-dir'], 'ca.key'), certs.ca.key, { mode: 0o600 });
  await writeFile(join(values['out-dir'], 'tls.crt'), certs.serving.cert);
  await writeFile(join(values['out-dir'], 'tls.key'), certs.serving.key, { mode: 0o600 });
  io.stdout(`wrote ca.crt, ca.key, tls.crt, tls.key to ${values['out-dir']} (valid ${days} days for ${dnsNames.join(', ')})\n`);
  if (values['secret-out'] !== undefined) {
    await writeFile(values['secret-out'], tlsSecret(certs, values.namespace), { mode: 0o600 });
    io.stdout(`wrote Secret nodesmith-webhooks-tls to ${values['secret-out']}\n`);
  }
  if (values['webhook-config'] !== '') {
    const injected = injectCaBundle(await readFile(values['webhook-config'], 'utf8'), certs.ca.cert);
    await writeFile(values['webhook-config'], injected.text);
    io.stdout(`set caBundle of ${injected.webhooks} webhook(s) in ${values['webhook-config']}\n`);
  }
  return 0;
}

export const certsCommand: Command = guardedCommand(certsSpec, run, 2);
