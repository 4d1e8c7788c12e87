// The chart on a real cluster: `helm install` creates the CRDs, RBAC, webhooks (with Helm's own certificate),
// Services and Deployments. The Deployments are scaled to zero and their image is replaced by local processes
// that run exactly the arguments the chart rendered (as a container of the image would), with the controller
// using its service account's token, so the chart's RBAC is what it runs with. A pod then gets a node.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { freePort } from '../stack/free-port.js';
import { httpsStatus } from '../stack/https-probe.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from '../stack/moto.js';
import { startStack, type Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import { chartDir, helm } from '../helm/helm.js';
import { LocalNodesmith } from './local-process.js';
import { clusterName, nodePoolYaml } from './product-stack.js';

async function kubectlJson<T>(stack: Stack, args: readonly string[]): Promise<T> {
  const r = await stack.kubectl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** A kubeconfig that authenticates as the chart's controller service account (a TokenRequest token). */
async function serviceAccountKubeconfig(stack: Stack): Promise<string> {
  const token = await stack.kubectl(['create', 'token', 'nodesmith', '-n', 'nodesmith', '--duration=2h']);
  if (token.code !== 0) throw new Error(`kubectl create token: ${token.stderr}`);
  const path = join(stack.dir, 'nodesmith-sa.kubeconfig');
  await writeFile(path, `apiVersion: v1
kind: Config
clusters: [{ name: test, cluster: { server: ${stack.server}, certificate-authority-data: ${(await readFile(stack.pki.caCert)).toString('base64')} } }]
users: [{ name: nodesmith, user: { token: ${token.stdout.trim()} } }]
contexts: [{ name: test, context: { cluster: test, user: nodesmith } }]
current-context: test
`, { mode: 0o600 });
  return path;
}

const containerArgs = (d: k8s.V1Deployment): string[] => d.spec?.template.spec?.containers[0]?.args ?? [];

interface Ports { readonly extender: number; readonly webhook: number; readonly health: number }

/** The values of this install: the test cluster, moto, and loopback ports for the local processes. */
function installValues(stack: Stack, moto: Moto, vpc: SeededVpc, ports: Ports): Record<string, string> {
  return {
    'settings.clusterName': clusterName, 'settings.clusterEndpoint': stack.server, 'settings.serviceCIDR': '10.96.0.0/16',
    'settings.kubernetesVersion': vpc.kubernetesVersion, 'settings.region': moto.region, 'settings.ec2Endpoint': moto.endpoint,
    'settings.amiParameterPrefix': vpc.amiParameterPrefix, 'settings.zones': `{${['a', 'b', 'c'].map((z) => moto.region + z).join(',')}}`,
    'settings.batchIdleDuration': '500ms', 'settings.logLevel': 'warn', 'settings.metricsNamespace': 'karpenter',
    // The image is replaced by local processes: no pods, and the API server calls the webhooks on loopback.
    'controller.replicas': '0', 'webhooks.replicas': '0',
    'controller.healthHost': '127.0.0.1', 'controller.healthPort': String(ports.health),
    'controller.extenderHost': '127.0.0.1', 'controller.extenderPort': String(ports.extender),
    'webhooks.port': String(ports.webhook), 'webhooks.url': `https://127.0.0.1:${String(ports.webhook)}`, 'webhooks.certificate.ipAddresses': '{127.0.0.1}',
    'scheduler.dropIn.urlPrefix': `http://127.0.0.1:${String(ports.extender)}`,
  };
}

/** `nodesmith webhooks` with the Deployment's arguments and the certificate Helm generated into the Secret. */
async function startWebhooks(stack: Stack, port: number): Promise<LocalNodesmith> {
  const secret = await kubectlJson<k8s.V1Secret>(stack, ['get', 'secret', 'nodesmith-webhooks-tls', '-n', 'nodesmith']);
  const tlsDir = join(stack.dir, 'helm-tls');
  await mkdir(tlsDir, { recursive: true });
  for (const key of ['tls.crt', 'tls.key']) await writeFile(join(tlsDir, key), Buffer.from(secret.data?.[key] ?? '', 'base64'), { mode: 0o600 });
  const ca = Buffer.from(secret.data?.['ca.crt'] ?? '', 'base64');
  const deployment = await kubectlJson<k8s.V1Deployment>(stack, ['get', 'deployment', 'nodesmith-webhooks', '-n', 'nodesmith']);
  return LocalNodesmith.start([...containerArgs(deployment), '--host=127.0.0.1', `--cert-file=${join(tlsDir, 'tls.crt')}`, `--key-file=${join(tlsDir, 'tls.key')}`], {
    logPath: join(stack.dir, 'nodesmith-webhooks.log'),
    isReady: async () => (await httpsStatus(`https://127.0.0.1:${String(port)}/readyz`, { ca })) === 200,
  });
}

/** `nodesmith run` with the Deployment's arguments untouched, as the chart's service account. */
async function startController(stack: Stack, moto: Moto, extenderPort: number): Promise<LocalNodesmith> {
  const deployment = await kubectlJson<k8s.V1Deployment>(stack, ['get', 'deployment', 'nodesmith', '-n', 'nodesmith']);
  return LocalNodesmith.start([...containerArgs(deployment), `--kubeconfig=${await serviceAccountKubeconfig(stack)}`], {
    logPath: join(stack.dir, 'nodesmith.log'),
    env: { AWS_ACCESS_KEY_ID: moto.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: moto.credentials.secretAccessKey, AWS_REGION: moto.region },
    isReady: async () => (await fetch(`http://127.0.0.1:${String(extenderPort)}/readyz`)).ok,
  });
}

/** kube-scheduler with the drop-in configuration the chart installed (only the kubeconfig path is the test's). */
async function startChartScheduler(stack: Stack): Promise<void> {
  const dropIn = await kubectlJson<k8s.V1ConfigMap>(stack, ['get', 'configmap', 'nodesmith-scheduler-drop-in', '-n', 'nodesmith']);
  const config = parse(dropIn.data?.['config.yaml'] ?? '') as Record<string, unknown>;
  await stack.startScheduler({ config: JSON.stringify({ ...config, clientConnection: { kubeconfig: stack.kubeconfigPath }, leaderElection: { leaderElect: false } }) });
}

const podYaml = `apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  terminationGracePeriodSeconds: 0
  containers: [{ name: web, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`;

/** Karpenter's printer columns, filled from the NodeClaim's labels and status as kubectl shows them. */
async function expectKarpenterColumns(t: Test, stack: Stack, nodeName: string): Promise<void> {
  // The Ready condition follows registration and initialisation, a moment after the pod runs.
  const table = await waitFor('the NodeClaim to be Ready', async () => {
    const lines = (await stack.kubectl(['get', 'nodeclaims'])).stdout.split('\n');
    return /\sTrue\s/.test(lines[1] ?? '') ? lines : undefined;
  }, { timeoutMs: 60_000 });
  t.match(table[0], /^NAME\s+TYPE\s+CAPACITY\s+ZONE\s+NODE\s+READY\s+AGE$/, 'kubectl get nodeclaims has Karpenter\'s columns');
  t.match(table[1], new RegExp(`\\S+\\s+\\S+\\.\\S+\\s+on-demand\\s+[a-z]+-[a-z]+-\\d[a-z]\\s+${nodeName}\\s+True\\s`), `and its row: ${table[1] ?? ''}`);
  const pools = (await stack.kubectl(['get', 'nodepools'])).stdout.split('\n');
  t.match(pools[0], /^NAME\s+NODECLASS\s+NODES\s+READY\s+AGE$/, 'kubectl get nodepools has Karpenter\'s columns');
}

/** /metrics under the karpenter namespace: Karpenter's gauges describe the launched node, its NodePool and the pod. */
async function expectKarpenterMetrics(t: Test, healthPort: number, nodeName: string): Promise<void> {
  const text = await (await fetch(`http://127.0.0.1:${String(healthPort)}/metrics`)).text();
  const allocatable = text.split('\n').find((l) => l.startsWith('karpenter_nodes_allocatable{') && l.includes(`node_name="${nodeName}"`) && l.includes('resource_type="cpu"'));
  t.match(allocatable, /nodepool="default".* \d+(\.\d+)?$/, `karpenter_nodes_allocatable for the launched node: ${allocatable ?? 'none'}`);
  t.match(text, new RegExp(`^karpenter_nodes_total_pod_requests\\{[^}]*node_name="${nodeName}"[^}]*resource_type="cpu"[^}]*\\} 1$`, 'm'), "the pod's 1 CPU request");
  t.match(text, /^karpenter_nodepools_usage\{nodepool="default",resource_type="cpu"\} [1-9]/m, 'karpenter_nodepools_usage');
  t.match(text, /^karpenter_pods_state\{name="web",namespace="default",[^}]*phase="Running"[^}]*\} 1$/m, 'karpenter_pods_state');
  t.match(text, /^karpenter_cluster_state_synced 1$/m);
  t.notMatch(text, /^nodesmith_/m, 'no metric keeps the nodesmith namespace');
}

/** Pod web runs on a launched (not virtual) node that a NodeClaim of the controller describes. */
async function expectPodOnLaunchedNode(t: Test, stack: Stack): Promise<string> {
  const pod = await waitFor('pod web Running on a launched node', async () => {
    const p = await kubectlJson<k8s.V1Pod>(stack, ['get', 'pod', 'web', '-n', 'default']);
    return p.status?.phase === 'Running' ? p : undefined;
  }, { timeoutMs: 180_000 });
  t.ok(pod.spec?.tolerations?.some((x) => x.key === 'nodesmith.io/launchable'), "the chart's pod webhook added the launchable toleration");
  const node = await kubectlJson<k8s.V1Node>(stack, ['get', 'node', pod.spec?.nodeName ?? '']);
  t.match(node.spec?.providerID, /^aws:\/\/\//, `pod web runs on ${node.metadata?.name ?? ''}, a launched EC2 instance`);
  t.notOk(node.metadata?.labels?.['nodesmith.io/launchable'], 'a real node, not a virtual one');
  const claims = await kubectlJson<{ items: unknown[] }>(stack, ['get', 'nodeclaims']);
  t.equal(claims.items.length, 1, "one NodeClaim, written with the chart's RBAC");
  return node.metadata?.name ?? '-';
}

void t.test('helm installs the chart, and the components it describes provision a pod', async (t) => {
  const stack = await startStack({ scheduler: false });
  const moto = await startMoto({ logDir: stack.dir });
  const processes: LocalNodesmith[] = [];
  t.teardown(async () => {
    if (!t.passing()) t.comment(`logs (${stack.dir}):\n${stack.logTails(30)}\n${processes.map((p) => `--- ${p.logPath} ---\n${p.tail()}`).join('\n')}`);
    for (const p of processes) await p.stop();
    await stack.stop();
    await moto.stop();
  });
  const vpc = await seedVpc(moto, clusterName);
  const ports = { extender: await freePort(), webhook: await freePort(), health: await freePort() };
  const install = await helm(['install', 'nodesmith', chartDir, '--namespace', 'nodesmith', '--create-namespace', '--kubeconfig', stack.kubeconfigPath,
    '--wait', '--timeout', '3m', ...Object.entries(installValues(stack, moto, vpc, ports)).flatMap(([k, v]) => ['--set', `${k}=${v}`])]);
  t.equal(install.code, 0, `helm install: ${install.stderr.trim() || 'ok'}`);
  if (install.code !== 0) return;
  t.equal((await stack.kubectl(['get', 'crd', 'nodepools.karpenter.sh', 'nodeclaims.karpenter.sh', 'ec2nodeclasses.karpenter.k8s.aws'])).code, 0, 'the chart installed the three CRDs');

  processes.push(await startWebhooks(stack, ports.webhook));
  processes.push(await startController(stack, moto, ports.extender));
  await startChartScheduler(stack);

  const applied = await stack.kubectl(['apply', '-f', '-'], nodePoolYaml('default', vpc, { extraRequirements: '', extraSpec: '' }));
  t.equal(applied.code, 0, `NodePool and EC2NodeClass admitted by the chart's webhooks: ${applied.stderr.trim() || 'ok'}`);
  const created = await stack.kubectl(['apply', '-f', '-'], podYaml);
  t.equal(created.code, 0, created.stderr);

  const nodeName = await expectPodOnLaunchedNode(t, stack);
  await expectKarpenterColumns(t, stack, nodeName);
  await expectKarpenterMetrics(t, ports.health, nodeName);
});
