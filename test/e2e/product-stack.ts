import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { defaultKarpenterGuard } from '../../cli/run-flags.js';
import type { ConsolidationOptions } from '../../provisioner/disruption/consolidation-settings.js';
import type { RunningNodesmith } from '../../cli/app.js';
import type { Replica } from './replica-set.js';
import type { ServiceProxy } from '../stack/service-proxy.js';
import { nodesmithApiAccess } from './nodesmith-kubeconfig.js';
import { nodePoolYaml } from './nodepool-yaml.js';
import { productLogTails, startReplicas } from './product-runners.js';

export { nodePoolYaml };
import { startFaultProxy, type FaultProxy } from '../stack/fault-proxy.js';
import { freePort } from '../stack/free-port.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from '../stack/moto.js';
import { issueCertificate } from '../stack/pki.js';
import { startStack, type Stack } from '../stack/stack.js';
import { pointAtUrl, untilLaunchableToleration } from '../webhooks/local-webhook-configurations.js';
import type { BatchWindows } from '../../provisioner/provisioning/batcher.js';

export const clusterName = 'nodesmith-test';

const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export interface ProductStack {
  readonly stack: Stack;
  readonly kc: k8s.KubeConfig;
  readonly core: k8s.CoreV1Api;
  readonly moto: Moto;
  readonly vpc: SeededVpc;
  /** Always between nodesmith and moto: it also makes launched instances carry their template's security groups. */
  readonly proxy: FaultProxy;
  /** Set when nodesmith runs in this process (the default); undefined in process mode. */
  nodesmith: RunningNodesmith | undefined;
  /** kubectl apply of YAML text; rejects with kubectl's message. */
  apply(yaml: string): Promise<void>;
  /** nodesmith's pid in child-process mode (for memory readings); undefined in-process. */
  childPid(): number | undefined;
  /** nodesmith's health server (/healthz, /readyz, /metrics), in either mode (the first replica's with several). */
  readonly healthUrl: string;
  /** With `replicas` > 1: each replica, in start order, and the Service in front of their extenders. */
  readonly replicas: readonly Replica[];
  readonly extenderService: ServiceProxy | undefined;
  /** With `apiService`: the Service nodesmith reaches the API server through (`resetAll()` drops its watches). */
  readonly apiService: ServiceProxy | undefined;
  /** Kills nodesmith without a chance to clean up (SIGKILL in process mode) and starts it again. */
  crashAndRestart(): Promise<void>;
  /** A NodePool + EC2NodeClass pair that selects the seeded VPC. */
  nodePoolYaml(name: string, extraRequirements?: string, extraSpec?: string): string;
  logTails(): string;
  stop(): Promise<void>;
}

export interface ProductStackOptions {
  /**
   * The batch windows. Tests plan sooner than `nodesmith run` (0.5 s idle, 5 s at most, a step each 0.5 s while pods
   * still arrive, as `nodesmith run` steps each second); the benches and the soak pass
   * `defaultBatchWindows`, what a user runs and Karpenter's own (1 s, 10 s): a race against Karpenter must batch as it does.
   */
  readonly batch?: BatchWindows;
  /**
   * `--early-planning-schedulers default-scheduler`, `nodesmith run`'s default: pods are planned before kube-scheduler
   * marks them Unschedulable. `false` is `--early-planning-schedulers none`: planned once Unschedulable, as Karpenter.
   */
  readonly earlyPlanning?: boolean;
  /** `false` is `--pod-deletion-cost none`: binds leave pods without their node's rank (scale-in-rank.ts). */
  readonly scaleInRank?: boolean;
  readonly dir?: string;
  /** Run `nodesmith run` as a child process (needed to test a real crash); default in-process. */
  readonly childProcess?: boolean;
  /** In child-process mode, run the build in dist/ rather than the sources (memory figures). */
  readonly compiled?: boolean;
  /** nodesmith's log level (default: NODESMITH_LOG_LEVEL, else warn); a bench reads its timeline at info. */
  readonly logLevel?: string;
  /** Have the API server keep an audit log (see StackOptions.audit). */
  readonly audit?: boolean;
  /**
   * The user name nodesmith authenticates as (its own client certificate, in system:masters), so its requests
   * can be told apart from everyone else's in the audit log. Default: the admin's kubeconfig.
   */
  readonly identity?: string;
  /** Create this SQS queue in moto and give it to nodesmith as its interruption queue. */
  readonly interruptionQueue?: string;
  /**
   * Price spot from DescribeSpotPriceHistory, refreshed at this period. moto answers a constant placeholder for every
   * type (docs/moto-differences.md), so only tests that set prices through the fault proxy turn this on.
   */
  readonly liveSpotPricesEveryMs?: number;
  /** How often drift is checked again and the EC2NodeClass re-resolved besides on changes (nodesmith's default: 5 min). */
  readonly driftRecheckMs?: number;
  /** `--controller-periods`: shorter periods for the controllers named, so a test watches a few passes, not minutes. */
  readonly controllerPeriods?: NodesmithConfig['controllerPeriods'];
  /** Where to look for a running Karpenter and whether to act anyway (default: `nodesmith run`'s). */
  readonly karpenterGuard?: NodesmithConfig['karpenterGuard'];
  /** `--metrics-namespace` (default nodesmith); `karpenter` for Karpenter's dashboards. */
  readonly metricsNamespace?: string;
  /**
   * Run `nodesmith run` from this container image (built by test/image/build-image.sh) with buildah: its ENTRYPOINT,
   * user and environment, on the host's network. Implies a child process.
   */
  readonly image?: string;
  /** `--feature-gates NodeRepair=true`. */
  readonly nodeRepair?: boolean;
  /** `--feature-gates StaticCapacity=true`: static NodePools admitted and kept at their replicas. */
  readonly staticCapacity?: boolean;
  /** `--feature-gates NodeOverlay=true`. */
  readonly nodeOverlay?: boolean;
  /** `--feature-gates CapacityBuffer=true`: CapacityBuffers admitted, resolved and their room kept. */
  readonly capacityBuffer?: boolean;
  /**
   * Turn multi- and single-node consolidation on, as `nodesmith run` always does. Left out, the disruption
   * controller runs emptiness and drift only, so other files' nodes are not consolidated under their assertions.
   */
  readonly consolidation?: ConsolidationOptions;
  /**
   * Run this many `nodesmith run` replicas (child processes, one Lease) behind local Services for the extender and
   * the webhooks (replica-set.ts), as the chart does; default 1.
   */
  readonly replicas?: number;
  /** nodesmith reaches the API server through a TCP proxy (ProductStack.apiService), so its connections can be cut. */
  readonly apiService?: boolean;
}

async function kubectlApply(stack: Stack, args: readonly string[], input?: string): Promise<void> {
  const r = await stack.kubectl(['apply', ...args], input);
  if (r.code !== 0) throw new Error(`kubectl apply ${args.join(' ')} failed: ${r.stderr}`);
}

export async function startProductStack(options: ProductStackOptions = {}): Promise<ProductStack> {
  const stack = await startStack({ scheduler: false, audit: options.audit === true, ...(options.dir === undefined ? {} : { dir: options.dir }) });
  let moto: Moto | undefined;
  let cluster: ExistingCluster | undefined;
  try {
    moto = await startMoto({ logDir: stack.dir });
    cluster = await freshCluster(stack, moto);
    return await startProduct(stack, moto, options, { ...cluster, fresh: true });
  } catch (error) {
    // The proxy's server too: left listening, it kept a file whose nodesmith did not start alive for tap's 600 s.
    await cluster?.proxy.stop();
    await moto?.stop();
    await stack.stop();
    throw error;
  }
}

/** The controllers' optional settings a test turns on. */
function controllerSwitches(options: ProductStackOptions): Pick<NodesmithConfig, 'driftRecheckMs' | 'controllerPeriods' | 'nodeRepair' | 'staticCapacity' | 'nodeOverlay' | 'capacityBuffer' | 'consolidation'> {
  return {
    ...(options.driftRecheckMs === undefined ? {} : { driftRecheckMs: options.driftRecheckMs }),
    ...(options.controllerPeriods === undefined ? {} : { controllerPeriods: options.controllerPeriods }),
    ...(options.nodeRepair === true ? { nodeRepair: true } : {}),
    ...(options.staticCapacity === true ? { staticCapacity: true } : {}),
    ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
    ...(options.capacityBuffer === true ? { capacityBuffer: true } : {}),
    ...(options.consolidation === undefined ? {} : { consolidation: options.consolidation }),
  };
}

/** A cluster nodesmith is installed on (a takeover): its stack, moto, VPC and proxy stay up when nodesmith stops. */
export interface ExistingCluster { readonly stack: Stack; readonly moto: Moto; readonly vpc: SeededVpc; readonly proxy: FaultProxy }

/** nodesmith installed on a running cluster; the cluster's CRDs (Karpenter's) stay, as Helm keeps them (docs/migration.md). */
export async function startProductOn(existing: ExistingCluster, options: ProductStackOptions = {}): Promise<ProductStack> {
  return startProduct(existing.stack, existing.moto, options, existing);
}

/** A fresh cluster: the seeded VPC, the fault proxy and nodesmith's CRDs. */
async function freshCluster(stack: Stack, moto: Moto): Promise<ExistingCluster> {
  const vpc = await seedVpc(moto, clusterName);
  const proxy = await startFaultProxy(moto.endpoint);
  await kubectlApply(stack, ['-f', repo('manifests/crds')]);
  await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
  return { stack, moto, vpc, proxy };
}

/** A `fresh` cluster was made for this product and goes with it when it stops; an existing one stays. */
async function startProduct(stack: Stack, moto: Moto, options: ProductStackOptions, cluster: ExistingCluster & { readonly fresh?: boolean }): Promise<ProductStack> {
  const { vpc, proxy } = cluster;
  const existing = cluster.fresh === true ? undefined : cluster;
  await kubectlApply(stack, ['-f', repo('manifests/base')]);
  const cert = await issueCertificate(stack.dir, 'nodesmith-webhooks', { subject: '/CN=nodesmith-webhooks', caCert: stack.pki.caCert, caKey: stack.pki.caKey, altNames: ['IP:127.0.0.1'] });
  const caBundle = (await readFile(stack.pki.caCert)).toString('base64');
  const [extenderPort, webhookPort, healthPort] = [await freePort(), await freePort(), await freePort()];
  const access = await nodesmithApiAccess(stack, { ...(options.identity === undefined ? {} : { identity: options.identity }), viaService: options.apiService === true });
  const config: NodesmithConfig = {
    kubeconfig: access.kubeconfig,
    kubeEnv: {},
    components: { provisioner: true, extender: true, webhooks: true },
    cluster: { name: clusterName, endpoint: stack.server, certificateAuthority: caBundle, serviceCidr: '10.96.0.0/16' },
    kubernetesVersion: vpc.kubernetesVersion,
    aws: {
      region: moto.region, endpoint: proxy.endpoint, credentials: moto.credentials, amiParameterPrefix: vpc.amiParameterPrefix,
      ...(options.interruptionQueue === undefined ? {} : { interruptionQueue: await createQueue(moto, options.interruptionQueue) }),
      ...(options.liveSpotPricesEveryMs === undefined ? { spotPrices: 'catalog' as const } : { spotPrices: 'api' as const, spotPriceRefreshMs: options.liveSpotPricesEveryMs }),
    },
    zones: ['a', 'b', 'c'].map((z) => `${moto.region}${z}`),
    extender: { host: '127.0.0.1', port: extenderPort, ...(options.scaleInRank === false ? { scaleInRank: false } : {}) },
    webhooks: { host: '127.0.0.1', port: webhookPort, certFile: cert.cert, keyFile: cert.key, productServiceAccount: 'system:serviceaccount:nodesmith:nodesmith' },
    health: { host: '127.0.0.1', port: healthPort, ...(options.metricsNamespace === undefined ? {} : { metricsNamespace: options.metricsNamespace }) },
    batch: options.batch ?? { idleMs: 500, maxMs: 5_000, stepMs: 500 },
    ...(options.earlyPlanning === false ? {} : { earlyPlanningSchedulers: ['default-scheduler'] }),
    ...controllerSwitches(options),
    karpenterGuard: options.karpenterGuard ?? defaultKarpenterGuard(),
    leaderElection: { enabled: true, namespace: 'nodesmith', identity: `e2e-${String(Date.now())}` },
    logLevel: options.logLevel ?? process.env['NODESMITH_LOG_LEVEL'] ?? 'warn',
  };
  const { runner, replicas, extenderService, served } = await startReplicas(config, options, stack, moto);
  const webhookConfigurations = await readFile(repo('manifests/webhooks/webhook-configurations.yaml'), 'utf8');
  await kubectlApply(stack, ['-f', '-'], pointAtUrl(webhookConfigurations, `https://127.0.0.1:${String(served.webhook)}`, await readFile(stack.pki.caCert, 'utf8')));
  // The launchable toleration is the API server's own (a MutatingAdmissionPolicy): no webhook round trip per pod.
  // Tests create pods at once, so wait until the policy is in force, as a webhook's configuration also takes a moment.
  await kubectlApply(stack, ['-f', repo('manifests/webhooks/launchable-toleration-policy.yaml')]);
  await untilLaunchableToleration(stack, 'default');
  await stack.startScheduler([{ urlPrefix: `http://127.0.0.1:${String(served.extender)}`, filterVerb: 'filter', prioritizeVerb: 'prioritize', bindVerb: 'bind', weight: 5, nodeCacheCapable: true, httpTimeout: '60s', ignorable: false }]);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(stack.kubeconfigPath);
  const product: ProductStack = {
    stack, kc, core: kc.makeApiClient(k8s.CoreV1Api), moto, vpc, proxy, nodesmith: runner.inProcess,
    apply: (yaml) => kubectlApply(stack, ['-f', '-'], yaml),
    childPid: () => runner.pid,
    healthUrl: served.healthUrl,
    replicas, extenderService, apiService: access.apiService,
    crashAndRestart: async () => {
      await runner.crashAndRestart();
      product.nodesmith = runner.inProcess;
    },
    nodePoolYaml: (name, extraRequirements = '', extraSpec = '') => nodePoolYaml(name, vpc, { extraRequirements, extraSpec }),
    logTails: () => productLogTails(stack, moto, options, replicas),
    stop: async () => {
      await runner.stop().catch(() => undefined);
      await access.apiService?.stop();
      if (existing !== undefined) return;
      await stack.stop();
      await proxy.stop();
      await moto.stop();
    },
  };
  return product;
}

/** The queue as EventBridge's target would be (Karpenter's CloudFormation: 300 s retention). */
async function createQueue(moto: Moto, name: string): Promise<string> {
  const sqs = new SQSClient({ region: moto.region, endpoint: moto.endpoint, credentials: moto.credentials });
  try {
    await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { MessageRetentionPeriod: '300' } }));
    return name;
  } finally {
    sqs.destroy();
  }
}
