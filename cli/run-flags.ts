import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { NodesmithConfig } from './app-config.js';
import { metricsNamespaceProblem } from './metrics-namespace.js';
import { consolidationFlags } from './consolidation-flags.js';
import { controllerPeriods } from './controller-periods.js';
import { durationMs } from './duration-flag.js';
import type { BatchWindows } from '../provisioner/provisioning/batcher.js';
import { featureGatesText, isGateOn } from './feature-gates.js';
import { karpenterGuardDefaults, runFlagSpec } from './run-flag-spec.js';
import { scaleInRankOf } from './pod-deletion-cost-flag.js';

function port(text: string, flag: string, problems: string[]): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) problems.push(`--${flag} must be a port 0–65535; got "${text}"`);
  return n;
}

/** A non-negative number (an integer when `integer`), or undefined when neither the flag nor its variable is set. */
function nonNegative(text: string | undefined, flag: string, problems: string[], integer: boolean): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    problems.push(`--${flag} must be a non-negative ${integer ? 'integer' : 'number'}; got "${text}"`);
  }
  return n;
}

type Flags = ReturnType<typeof parseArgs<{ options: typeof runFlagSpec }>>['values'];

/** Karpenter's operator settings of the same names (flag or environment variable), which size every node it plans. */
function sizingFlags(v: Flags, env: Readonly<Record<string, string | undefined>>, problems: string[]): { reservedEnis?: number; vmMemoryOverheadPercent?: number } {
  const reservedEnis = nonNegative(v['reserved-enis'] ?? env['RESERVED_ENIS'], 'reserved-enis', problems, true);
  const vmMemoryOverheadPercent = nonNegative(v['vm-memory-overhead-percent'] ?? env['VM_MEMORY_OVERHEAD_PERCENT'], 'vm-memory-overhead-percent', problems, false);
  return { ...(reservedEnis === undefined ? {} : { reservedEnis }), ...(vmMemoryOverheadPercent === undefined ? {} : { vmMemoryOverheadPercent }) };
}

/** The checks that span flags; single-value checks happen where each value is converted. */
function crossFlagProblems(v: Flags, components: ReadonlySet<string>, clusterName: string | undefined): string[] {
  const problems: string[] = [];
  for (const c of components) if (!['provisioner', 'extender', 'webhooks'].includes(c)) problems.push(`--components: unknown component "${c}" (choose from provisioner, extender, webhooks)`);
  if (components.has('provisioner') && (clusterName === undefined || clusterName === '')) problems.push('--cluster-name (or CLUSTER_NAME) is required: it scopes instance tags and ownership');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(v['log-level'])) problems.push(`--log-level must be fatal, error, warn, info, debug, trace or silent; got "${v['log-level']}"`);
  if ((v['extender-cert-file'] === undefined) !== (v['extender-key-file'] === undefined)) problems.push('--extender-cert-file and --extender-key-file go together');
  const namespaceProblem = metricsNamespaceProblem(v['metrics-namespace']);
  if (namespaceProblem !== undefined) problems.push(namespaceProblem);
  if (!['api', 'catalog'].includes(v['spot-prices'])) problems.push(`--spot-prices must be api or catalog; got "${v['spot-prices']}"`);
  return problems;
}

/** `namespace/name,…` (empty: none) for the Karpenter guard's objects. */
function objectKeys(text: string, flag: string, problems: string[]): { namespace: string; name: string }[] {
  return text.split(',').map((k) => k.trim()).filter((k) => k !== '').flatMap((k) => {
    const [namespace, name, extra] = k.split('/');
    if (namespace === undefined || namespace === '' || name === undefined || name === '' || extra !== undefined) {
      problems.push(`--${flag} takes namespace/name pairs separated by commas; got "${k}"`);
      return [];
    }
    return [{ namespace, name }];
  });
}

/**
 * `--early-planning-schedulers a,b`: the scheduler names whose untried pods are planned (pending-pods.ts); by default
 * the cluster's own kube-scheduler, which the drop-in configuration makes call the extender. `none` (or nothing)
 * turns early planning off: pods are planned once kube-scheduler marks them Unschedulable, as Karpenter does.
 */
function earlyPlanning(value: string, problems: string[]): Pick<NodesmithConfig, 'earlyPlanningSchedulers'> {
  if (value.trim() === 'none') return {};
  const names = value.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const bad = names.filter((n) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n));
  if (bad.length > 0) problems.push(`--early-planning-schedulers takes scheduler names separated by commas; "${bad.join('", "')}" is not one`);
  return names.length === 0 || bad.length > 0 ? {} : { earlyPlanningSchedulers: names };
}

/** The guard as `nodesmith run` sets it up without flags (test stacks start from it). */
export function defaultKarpenterGuard(): NodesmithConfig['karpenterGuard'] {
  const problems: string[] = [];
  return {
    leases: objectKeys(karpenterGuardDefaults.leases, 'karpenter-leases', problems),
    deployments: objectKeys(karpenterGuardDefaults.deployments, 'karpenter-deployments', problems),
    override: false,
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

/** Parses `nodesmith run` flags; returns every problem at once rather than failing on the first. */
export function parseRunFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): NodesmithConfig | string[] {
  const { values: v } = parseArgs({ args: [...argv], options: runFlagSpec, strict: true });
  const components = new Set(v.components.split(',').map((c) => c.trim()).filter((c) => c !== ''));
  const clusterName = v['cluster-name'] ?? env['CLUSTER_NAME'];
  const problems = crossFlagProblems(v, components, clusterName);
  const gates = featureGatesText(v['feature-gates'], env);
  const certFile = v['extender-cert-file'];
  const keyFile = v['extender-key-file'];
  const config: NodesmithConfig = {
    ...optional('kubeconfig', v.kubeconfig),
    kubeEnv: env,
    components: { provisioner: components.has('provisioner'), extender: components.has('extender'), webhooks: components.has('webhooks') },
    cluster: { name: clusterName ?? '', endpoint: v['cluster-endpoint'] ?? env['CLUSTER_ENDPOINT'] ?? '', certificateAuthority: v['cluster-ca-bundle'], serviceCidr: v['service-cidr'], ...optional('dnsClusterIp', v['cluster-dns-ip']) },
    kubernetesVersion: v['kubernetes-version'],
    aws: {
      region: v.region,
      ...optional('endpoint', v['ec2-endpoint']),
      ...optional('amiParameterPrefix', v['ami-parameter-prefix']),
      ...optional('interruptionQueue', v['interruption-queue'] ?? env['INTERRUPTION_QUEUE']),
      spotPrices: v['spot-prices'] === 'catalog' ? 'catalog' : 'api',
      spotPriceRefreshMs: durationMs(v['spot-price-refresh'], 'spot-price-refresh', problems),
      ...sizingFlags(v, env, problems),
    },
    ...optional('zones', v.zones?.split(',').map((z) => z.trim())),
    extender: {
      host: v['extender-host'], port: port(v['extender-port'], 'extender-port', problems), scaleInRank: scaleInRankOf(v['pod-deletion-cost'], problems),
      ...optional('tls', certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined),
      ...optional('peerHost', v['extender-peer-host']),
    },
    webhooks: { host: v['webhook-host'], port: port(v['webhook-port'], 'webhook-port', problems), certFile: v['webhook-cert-file'], keyFile: v['webhook-key-file'], productServiceAccount: v['service-account'] },
    health: { host: v['health-host'], port: port(v['health-port'], 'health-port', problems), metricsNamespace: v['metrics-namespace'] },
    consolidation: consolidationFlags({ minSavings: v['consolidation-min-savings'], featureGates: gates }, problems),
    nodeRepair: isGateOn(gates, 'NodeRepair'),
    reservedCapacity: isGateOn(gates, 'ReservedCapacity'),
    staticCapacity: isGateOn(gates, 'StaticCapacity'),
    nodeOverlay: isGateOn(gates, 'NodeOverlay'),
    capacityBuffer: isGateOn(gates, 'CapacityBuffer'),
    dynamicResourceAllocation: isGateOn(gates, 'DynamicResourceAllocation'),
    batch: batchWindows({ idle: v['batch-idle-duration'], max: v['batch-max-duration'], step: v['batch-step-duration'] }, problems),
    ...earlyPlanning(v['early-planning-schedulers'], problems),
    driftRecheckMs: durationMs(v['drift-recheck-interval'], 'drift-recheck-interval', problems),
    ...optional('controllerPeriods', controllerPeriods(v['controller-periods'], problems)),
    karpenterGuard: {
      leases: objectKeys(v['karpenter-leases'], 'karpenter-leases', problems),
      deployments: objectKeys(v['karpenter-deployments'], 'karpenter-deployments', problems),
      override: v['ignore-running-karpenter'],
    },
    leaderElection: { enabled: v['leader-elect'], namespace: v['leader-election-namespace'], identity: `${env['POD_NAME'] ?? hostname()}-${Math.random().toString(36).slice(2, 8)}` },
    logLevel: v['log-level'],
    // The image sets NODESMITH_COMMIT from its build argument (Karpenter reads the VCS revision from its binary).
    ...optional('commit', env['NODESMITH_COMMIT']),
  };
  return problems.length > 0 ? problems : Object.freeze(config);
}

/** The batch windows; a step of 0 plans only when the batch closes, as Karpenter does. */
function batchWindows(text: { idle: string; max: string; step: string }, problems: string[]): BatchWindows {
  const stepMs = durationMs(text.step, 'batch-step-duration', problems);
  return {
    idleMs: durationMs(text.idle, 'batch-idle-duration', problems),
    maxMs: durationMs(text.max, 'batch-max-duration', problems),
    ...(stepMs > 0 ? { stepMs } : {}),
  };
}
