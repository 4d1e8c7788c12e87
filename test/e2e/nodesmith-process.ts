import { spawn, type ChildProcess } from 'node:child_process';
import { readImageNodeFlags, readImageRuntimeEnv } from '../support/image-env.js';
import { createWriteStream, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { waitFor } from '../stack/wait-for.js';
import { runFromSource } from '../support/run-from-source.js';
import type { ImageLaunch } from '../image/image-launch.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** One `--feature-gates` flag for every gate the config turns on. */
function featureGates(c: NodesmithConfig): string[] {
  const gates = [...(c.nodeRepair === true ? ['NodeRepair=true'] : []), ...(c.staticCapacity === true ? ['StaticCapacity=true'] : []), ...(c.nodeOverlay === true ? ['NodeOverlay=true'] : []), ...(c.capacityBuffer === true ? ['CapacityBuffer=true'] : []), ...(c.consolidation?.spotToSpot === true ? ['SpotToSpotConsolidation=true'] : [])];
  return gates.length === 0 ? [] : [`--feature-gates=${gates.join(',')}`];
}

function karpenterGuardFlags(c: NodesmithConfig): string[] {
  const keys = (list: readonly { namespace: string; name: string }[]): string => list.map((k) => `${k.namespace}/${k.name}`).join(',');
  const g = c.karpenterGuard;
  return [`--karpenter-leases=${keys(g.leases)}`, `--karpenter-deployments=${keys(g.deployments)}`, ...(g.override ? ['--ignore-running-karpenter'] : [])];
}

/** The AWS settings as flags: region and endpoints, the interruption queue and where spot prices come from. */
function awsFlags(a: NodesmithConfig['aws']): string[] {
  return [
    `--region=${a.region}`, ...(a.endpoint ? [`--ec2-endpoint=${a.endpoint}`] : []), ...(a.amiParameterPrefix ? [`--ami-parameter-prefix=${a.amiParameterPrefix}`] : []),
    ...(a.interruptionQueue === undefined ? [] : [`--interruption-queue=${a.interruptionQueue}`]),
    ...(a.spotPrices === undefined ? [] : [`--spot-prices=${a.spotPrices}`]),
    ...(a.spotPriceRefreshMs === undefined ? [] : [`--spot-price-refresh=${String(a.spotPriceRefreshMs)}ms`]),
  ];
}

/** `nodesmith run` flags for a config, so a test can run the real CLI as its own process. */
export function runFlags(c: NodesmithConfig): string[] {
  const components = Object.entries(c.components).filter(([, on]) => on).map(([name]) => name).join(',');
  return [
    'run', `--components=${components}`, `--cluster-name=${c.cluster.name}`, `--cluster-endpoint=${c.cluster.endpoint}`,
    `--cluster-ca-bundle=${c.cluster.certificateAuthority}`, `--service-cidr=${c.cluster.serviceCidr}`, `--kubernetes-version=${c.kubernetesVersion}`,
    ...awsFlags(c.aws),
    ...(c.health.metricsNamespace === undefined ? [] : [`--metrics-namespace=${c.health.metricsNamespace}`]),
    ...(c.zones ? [`--zones=${c.zones.join(',')}`] : []), ...(c.kubeconfig ? [`--kubeconfig=${c.kubeconfig}`] : []),
    `--extender-host=${c.extender.host}`, `--extender-port=${String(c.extender.port)}`, ...(c.extender.peerHost === undefined ? [] : [`--extender-peer-host=${c.extender.peerHost}`]),
    `--webhook-host=${c.webhooks.host}`, `--webhook-port=${String(c.webhooks.port)}`, `--webhook-cert-file=${c.webhooks.certFile}`, `--webhook-key-file=${c.webhooks.keyFile}`,
    `--service-account=${c.webhooks.productServiceAccount}`, `--health-host=${c.health.host}`, `--health-port=${String(c.health.port)}`,
    `--batch-idle-duration=${String(c.batch.idleMs)}ms`, `--batch-max-duration=${String(c.batch.maxMs)}ms`, `--batch-step-duration=${String(c.batch.stepMs ?? 0)}ms`,
    // Unset in the config is off; the flag's own default is on.
    `--early-planning-schedulers=${c.earlyPlanningSchedulers === undefined ? 'none' : c.earlyPlanningSchedulers.join(',')}`,
    ...(c.driftRecheckMs === undefined ? [] : [`--drift-recheck-interval=${String(c.driftRecheckMs)}ms`]),
    ...(c.controllerPeriods === undefined ? [] : [`--controller-periods=${Object.entries(c.controllerPeriods).map(([name, ms]) => `${name}=${String(ms)}ms`).join(',')}`]),
    ...(c.consolidation?.minSavings === undefined ? [] : [`--consolidation-min-savings=${c.consolidation.minSavings.text}`]),
    ...featureGates(c),
    ...karpenterGuardFlags(c),
    `--leader-election-namespace=${c.leaderElection.namespace}`, `--log-level=${c.logLevel}`,
  ];
}

/** nodesmith as a child process: the way to test a crash (SIGKILL) rather than a graceful stop. */
export class NodesmithProcess {
  private readonly config: NodesmithConfig;
  private readonly logPath: string;
  private readonly credentials: { accessKeyId: string; secretAccessKey: string };
  private readonly how: { readonly compiled?: boolean; readonly image?: ImageLaunch; readonly env?: Readonly<Record<string, string>> };
  #child: ChildProcess | undefined;

  /**
   * `compiled` runs the build in dist/ (as the image does) instead of the sources (run-from-source.ts),
   * whose loader hooks add to the process's memory: memory figures must be taken that way.
   */
  constructor(config: NodesmithConfig, logPath: string, credentials: { accessKeyId: string; secretAccessKey: string }, how: { readonly compiled?: boolean; readonly image?: ImageLaunch; readonly env?: Readonly<Record<string, string>> } = {}) {
    this.config = config;
    this.logPath = logPath;
    this.credentials = credentials;
    this.how = how;
  }

  /** The running process's pid, for memory readings. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    const log = createWriteStream(this.logPath, { flags: 'a' });
    if (this.how.compiled === true && !existsSync(`${repoRoot}dist/cli/main.js`)) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
    const aws = { AWS_ACCESS_KEY_ID: this.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: this.credentials.secretAccessKey, AWS_REGION: this.config.aws.region };
    const entry = this.how.compiled === true ? [...readImageNodeFlags(`${repoRoot}Dockerfile`), 'dist/cli/main.js'] : [...runFromSource, 'cli/main.ts'];
    const image = this.how.image;
    const child = image === undefined
      ? spawn(process.execPath, [...entry, ...runFlags(this.config)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...this.#imageEnv(), ...this.how.env, ...aws } })
      : spawn(image.file, image.args(runFlags(this.config), aws), { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: image.env });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    this.#child = child;
    // A process that exits before it is ready fails the start at once, not after the 60 s of polling.
    let onExit: ((code: number | null) => void) | undefined;
    const exited = new Promise<never>((_resolve, reject) => {
      onExit = (code) => { reject(new Error(`nodesmith exited with ${String(code)} before it was ready; see ${this.logPath}`)); };
      child.once('exit', onExit);
    });
    try {
      await Promise.race([exited, waitFor('nodesmith to be ready', async () => {
        const res = await fetch(`http://127.0.0.1:${String(this.config.health.port)}/readyz`);
        return res.ok ? true : undefined;
      }, { timeoutMs: 60_000 })]);
    } finally {
      if (onExit !== undefined) child.off('exit', onExit);
    }
  }

  /**
   * Compiled, nodesmith runs as the image runs it, memory settings included (these, and the ENTRYPOINT's node
   * flags above); NODE_OPTIONS adds to the test
   * runner's own (tap's process tracking) instead of replacing it.
   */
  #imageEnv(): Record<string, string> {
    if (this.how.compiled !== true) return {};
    const env = readImageRuntimeEnv(`${repoRoot}Dockerfile`);
    const inherited = process.env['NODE_OPTIONS'];
    if (env['NODE_OPTIONS'] !== undefined && inherited !== undefined && inherited !== '') env['NODE_OPTIONS'] = `${inherited} ${env['NODE_OPTIONS']}`;
    return env;
  }

  /** SIGKILL: no shutdown hook runs, exactly like a node or container dying. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child?.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child?.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
