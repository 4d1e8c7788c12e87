import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { startComponent, type Component } from './component.js';
import { freePort } from './free-port.js';
import type { Stack } from './stack.js';
import { waitFor } from './wait-for.js';
import { builtBinDir } from './binaries.js';

const run = promisify(execFile);

/** The Karpenter release the takeover test and the side-by-side bench run (build-karpenter.sh builds it). */
export const karpenterVersion = 'v1.15.0';
/** Where Karpenter keeps its leader-election Lease when told to (the chart's namespace). */
export const karpenterNamespace = 'karpenter';

/** The controller binary, built once from the Go module proxy and cached by version. */
export async function karpenterBinary(): Promise<string> {
  return join(await builtBinDir('build-karpenter.sh', ['controller'], { KARPENTER_VERSION: karpenterVersion }), 'karpenter-controller');
}

/**
 * Karpenter's own source at the pinned version (its CRDs, its examples/workloads), from the Go module cache the
 * build filled. GOTOOLCHAIN=auto: the module asks for a newer Go than the machine's, and `go mod download`
 * refuses it otherwise.
 */
export async function karpenterModuleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `github.com/aws/karpenter-provider-aws@${karpenterVersion}`], { env: { ...process.env, GOTOOLCHAIN: 'auto', GOFLAGS: '-mod=mod' }, cwd: '/' });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (dir === undefined) throw new Error(`go mod download gave no directory for karpenter-provider-aws@${karpenterVersion}: ${stdout}`);
  return dir;
}

/** Applies Karpenter's CRDs (NodePool, NodeClaim, EC2NodeClass, NodeOverlay, CapacityBuffer) as its chart would. */
export async function applyKarpenterCrds(stack: Stack): Promise<void> {
  const crds = join(await karpenterModuleDir(), 'pkg/apis/crds');
  const applied = await stack.kubectl(['apply', '--server-side', '-f', crds]);
  if (applied.code !== 0) throw new Error(`applying Karpenter's CRDs failed: ${applied.stderr}`);
  await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
}

export interface KarpenterOptions {
  readonly stack: Stack;
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** EC2, IAM and SQS (the fault proxy in front of moto). */
  readonly awsEndpoint: string;
  /** SSM, where the EKS AMI parameters are served (startSsmAliasProxy). */
  readonly ssmEndpoint: string;
  /** SQS queue name; interruption handling is off without one, as in Karpenter. */
  readonly interruptionQueue?: string;
  readonly logLevel?: 'debug' | 'info' | 'error';
  /**
   * Ask the Pricing API at `awsEndpoint` for on-demand prices (ISOLATED_VPC=false), where the fault proxy serves it
   * from a table (FaultProxy.setEc2Prices); otherwise Karpenter prices from its built-in table.
   */
  readonly pricingApi?: boolean;
}

export interface RunningKarpenter {
  readonly component: Component;
  readonly metricsUrl: string;
  /** SIGTERM: Karpenter releases its Lease on a clean shutdown (ReleaseOnCancel). */
  stop(): Promise<void>;
  /** SIGKILL: the Lease stays held until it expires, as after a crashed pod. */
  kill(): Promise<void>;
}

/**
 * The real Karpenter controller as an out-of-cluster process against the test stack and moto. The settings keep it
 * off the services moto lacks: CLUSTER_ENDPOINT (no EKS DescribeCluster), ISOLATED_VPC (no Pricing API: its built-in
 * on-demand prices, unless `pricingApi`), no EKS control plane (the version comes from the API server), the SDK's per-service endpoint
 * variables (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_SSM) and IMDS off (the region is given).
 */
export async function startKarpenter(options: KarpenterOptions): Promise<RunningKarpenter> {
  const { stack } = options;
  await stack.kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata: { name: ${karpenterNamespace} }\n`);
  const [metrics, health] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    KUBECONFIG: stack.kubeconfigPath,
    CLUSTER_NAME: options.clusterName,
    CLUSTER_ENDPOINT: stack.server,
    ISOLATED_VPC: options.pricingApi === true ? 'false' : 'true',
    EKS_CONTROL_PLANE: 'false',
    INTERRUPTION_QUEUE: options.interruptionQueue ?? '',
    LEADER_ELECTION_NAMESPACE: karpenterNamespace,
    METRICS_PORT: String(metrics),
    HEALTH_PROBE_PORT: String(health),
    LOG_LEVEL: options.logLevel ?? 'debug',
    AWS_REGION: options.region,
    AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
    AWS_ENDPOINT_URL: options.awsEndpoint,
    AWS_ENDPOINT_URL_SSM: options.ssmEndpoint,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const component = startComponent({ name: 'karpenter', command: await karpenterBinary(), args: [], logDir: stack.dir, env });
  const crashed = component.exited.then((code) => { throw new Error(`karpenter exited with ${String(code)} before it was ready\n${component.tail(60)}`); });
  try {
    await Promise.race([waitFor('karpenter to be ready and elected', async () => {
      const ready = await fetch(`http://127.0.0.1:${String(health)}/readyz`).then((r) => r.ok, () => false);
      return ready && (await leaseHolder(stack)) !== '' ? true : undefined;
    }, { timeoutMs: 240_000, intervalMs: 1_000 }), crashed]);
  } catch (error) {
    await component.stop();
    throw error;
  }
  crashed.catch(() => undefined);
  return {
    component,
    metricsUrl: `http://127.0.0.1:${String(metrics)}/metrics`,
    stop: () => component.stop(),
    kill: async () => {
      if (component.process.exitCode !== null || component.process.pid === undefined) return;
      process.kill(-component.process.pid, 'SIGKILL');
      await component.exited;
    },
  };
}

/** Who holds Karpenter's leader-election Lease ('' when nobody does or it is absent). */
export async function leaseHolder(stack: Stack): Promise<string> {
  const r = await stack.kubectl(['-n', karpenterNamespace, 'get', 'lease', 'karpenter-leader-election', '-o', 'jsonpath={.spec.holderIdentity}']);
  return r.code === 0 ? r.stdout.trim() : '';
}
