import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startNodesmith, type RunningNodesmith } from '../../cli/app.js';
import { startFaultProxy, type FaultProxy } from '../stack/fault-proxy.js';
import { freePort } from '../stack/free-port.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from '../stack/moto.js';
import { issueCertificate } from '../stack/pki.js';
import { startStack, type Stack } from '../stack/stack.js';

export const clusterName = 'nodesmith-test';
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export interface ProductStack {
  readonly stack: Stack;
  readonly kc: k8s.KubeConfig;
  readonly core: k8s.CoreV1Api;
  readonly moto: Moto;
  readonly vpc: SeededVpc;
  readonly proxy: FaultProxy | undefined;
  nodesmith: RunningNodesmith;
  /** kubectl apply of YAML text; rejects with kubectl's message. */
  apply(yaml: string): Promise<void>;
  /** Stops and starts nodesmith again (a controller restart). */
  restart(): Promise<void>;
  /** A NodePool + EC2NodeClass pair that selects the seeded VPC. */
  nodePoolYaml(name: string, extraRequirements?: string, extraSpec?: string): string;
  logTails(): string;
  stop(): Promise<void>;
}

export interface ProductStackOptions {
  /** Put the CreateFleet fault proxy between nodesmith and moto. */
  readonly faultProxy?: boolean;
  readonly batchIdleMs?: number;
  readonly dir?: string;
}

async function kubectlApply(stack: Stack, args: readonly string[], input?: string): Promise<void> {
  const r = await stack.kubectl(['apply', ...args], input);
  if (r.code !== 0) throw new Error(`kubectl apply ${args.join(' ')} failed: ${r.stderr}`);
}

/** The webhook configurations of manifests/, pointed at a local URL instead of the in-cluster Service. */
async function localWebhookConfigurations(url: string, caBundle: string): Promise<string> {
  const docs = parseAllDocuments(await readFile(repo('manifests/webhooks/webhook-configurations.yaml'), 'utf8')).map((d) => d.toJSON() as { webhooks?: { clientConfig: { service?: { path?: string }; url?: string; caBundle?: string } }[] });
  for (const doc of docs) {
    for (const hook of doc.webhooks ?? []) {
      hook.clientConfig = { url: `${url}${hook.clientConfig.service?.path ?? ''}`, caBundle };
    }
  }
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}

export async function startProductStack(options: ProductStackOptions = {}): Promise<ProductStack> {
  const stack = await startStack({ scheduler: false, ...(options.dir === undefined ? {} : { dir: options.dir }) });
  let moto: Moto | undefined;
  try {
    moto = await startMoto({ logDir: stack.dir });
    return await startProduct(stack, moto, options);
  } catch (error) {
    await moto?.stop();
    await stack.stop();
    throw error;
  }
}

async function startProduct(stack: Stack, moto: Moto, options: ProductStackOptions): Promise<ProductStack> {
  const vpc = await seedVpc(moto, clusterName);
  const proxy = options.faultProxy === true ? await startFaultProxy(moto.endpoint) : undefined;
  await kubectlApply(stack, ['-f', repo('manifests/crds')]);
  await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
  await kubectlApply(stack, ['-f', repo('manifests/base')]);
  const cert = await issueCertificate(stack.dir, 'nodesmith-webhooks', { subject: '/CN=nodesmith-webhooks', caCert: stack.pki.caCert, caKey: stack.pki.caKey, altNames: ['IP:127.0.0.1'] });
  const caBundle = (await readFile(stack.pki.caCert)).toString('base64');
  const [extenderPort, webhookPort] = [await freePort(), await freePort()];
  const start = async (): Promise<RunningNodesmith> => startNodesmith({
    kubeconfig: stack.kubeconfigPath,
    components: { provisioner: true, extender: true, webhooks: true },
    cluster: { name: clusterName, endpoint: stack.server, certificateAuthority: caBundle, serviceCidr: '10.96.0.0/16' },
    kubernetesVersion: vpc.kubernetesVersion,
    aws: { region: moto.region, endpoint: proxy?.endpoint ?? moto.endpoint, credentials: moto.credentials, amiParameterPrefix: vpc.eksAmiParameterPrefix },
    zones: ['a', 'b', 'c'].map((z) => `${moto.region}${z}`),
    extender: { host: '127.0.0.1', port: extenderPort },
    webhooks: { host: '127.0.0.1', port: webhookPort, certFile: cert.cert, keyFile: cert.key, productServiceAccount: 'system:serviceaccount:nodesmith:nodesmith' },
    health: { host: '127.0.0.1', port: 0 },
    batch: { idleMs: options.batchIdleMs ?? 500, maxMs: 5_000 },
    leaderElection: { enabled: true, namespace: 'nodesmith', identity: `e2e-${String(Date.now())}` },
    logLevel: process.env['NODESMITH_LOG_LEVEL'] ?? 'warn',
  });
  let nodesmith = await start();
  await kubectlApply(stack, ['-f', '-'], await localWebhookConfigurations(`https://127.0.0.1:${webhookPort}`, caBundle));
  await stack.startScheduler([{ urlPrefix: `http://127.0.0.1:${extenderPort}`, filterVerb: 'filter', prioritizeVerb: 'prioritize', bindVerb: 'bind', weight: 5, nodeCacheCapable: true, httpTimeout: '60s', ignorable: false }]);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(stack.kubeconfigPath);
  const product: ProductStack = {
    stack, kc, core: kc.makeApiClient(k8s.CoreV1Api), moto, vpc, proxy, nodesmith,
    apply: (yaml) => kubectlApply(stack, ['-f', '-'], yaml),
    restart: async () => {
      await nodesmith.stop();
      nodesmith = await start();
      product.nodesmith = nodesmith;
    },
    nodePoolYaml: (name, extraRequirements = '', extraSpec = '') => nodePoolYaml(name, vpc, { extraRequirements, extraSpec }),
    logTails: () => `${stack.logTails(30)}\n--- moto ---\n${moto.tail(20)}`,
    stop: async () => {
      await nodesmith.stop().catch(() => undefined);
      await stack.stop();
      await proxy?.stop();
      await moto.stop();
    },
  };
  return product;
}

function nodePoolYaml(name: string, vpc: SeededVpc, extra: { extraRequirements: string; extraSpec: string }): string {
  return `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: ${name} }
spec:
  role: nodesmith-node-role
  amiSelectorTerms: [{ alias: al2023@latest }]
  subnetSelectorTerms: [{ tags: { ${vpc.discoveryTag.key}: ${vpc.discoveryTag.value} } }]
  securityGroupSelectorTerms: [{ tags: { ${vpc.discoveryTag.key}: ${vpc.discoveryTag.value} } }]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${name} }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: ${name} }
      requirements:
        - { key: kubernetes.io/os, operator: In, values: [linux] }${extra.extraRequirements}
${extra.extraSpec}`;
}
