// `nodesmith run`'s flags as data, apart from their parsing (run-flags.ts): command-specs.ts builds run's usage
// line from them, so `--help` lists every flag without loading run's code (or anything it imports).
import { defaultBatchWindows } from '../provisioner/provisioning/batcher.js';
import { durationText } from './duration-flag.js';
import { podDeletionCostFlag } from './pod-deletion-cost-flag.js';

/**
 * Where Karpenter keeps its leader-election Lease (`karpenter-leader-election`, in its pod's namespace) and its
 * Deployment, in the two namespaces its chart is installed to; another namespace is given with the flags.
 */
export const karpenterGuardDefaults = {
  leases: 'karpenter/karpenter-leader-election,kube-system/karpenter-leader-election',
  deployments: 'karpenter/karpenter,kube-system/karpenter',
} as const;

export const runFlagSpec = {
  kubeconfig: { type: 'string' },
  components: { type: 'string', default: 'provisioner,extender,webhooks' },
  'cluster-name': { type: 'string' },
  'cluster-endpoint': { type: 'string' },
  'cluster-ca-bundle': { type: 'string', default: '' },
  'service-cidr': { type: 'string', default: '10.100.0.0/16' },
  'cluster-dns-ip': { type: 'string' },
  'kubernetes-version': { type: 'string', default: '1.36' },
  region: { type: 'string', default: 'us-east-1' },
  'ec2-endpoint': { type: 'string' },
  'ami-parameter-prefix': { type: 'string' },
  'interruption-queue': { type: 'string' },
  'spot-prices': { type: 'string', default: 'api' },
  'spot-price-refresh': { type: 'string', default: '5m' },
  zones: { type: 'string' },
  'reserved-enis': { type: 'string' },
  'vm-memory-overhead-percent': { type: 'string' },
  'extender-host': { type: 'string', default: '0.0.0.0' },
  'extender-port': { type: 'string', default: '8444' },
  'extender-cert-file': { type: 'string' },
  // Where the other replicas reach this one's extender, to hand the leader their binds (the chart: the pod's IP).
  'extender-peer-host': { type: 'string' },
  'extender-key-file': { type: 'string' },
  'webhook-host': { type: 'string', default: '0.0.0.0' },
  'webhook-port': { type: 'string', default: '9443' },
  'webhook-cert-file': { type: 'string', default: '/etc/nodesmith/tls/tls.crt' },
  'webhook-key-file': { type: 'string', default: '/etc/nodesmith/tls/tls.key' },
  'service-account': { type: 'string', default: 'system:serviceaccount:nodesmith:nodesmith' },
  'health-host': { type: 'string', default: '0.0.0.0' },
  'health-port': { type: 'string', default: '8080' },
  'metrics-namespace': { type: 'string', default: 'nodesmith' },
  'batch-idle-duration': { type: 'string', default: durationText(defaultBatchWindows.idleMs) },
  'batch-max-duration': { type: 'string', default: durationText(defaultBatchWindows.maxMs) },
  'batch-step-duration': { type: 'string', default: durationText(defaultBatchWindows.stepMs ?? 0) },
  'early-planning-schedulers': { type: 'string', default: 'default-scheduler' },
  ...podDeletionCostFlag,
  'drift-recheck-interval': { type: 'string', default: '5m' },
  'controller-periods': { type: 'string', default: '' },
  'consolidation-min-savings': { type: 'string', default: '' },
  'feature-gates': { type: 'string', default: '' },
  'leader-elect': { type: 'boolean', default: true },
  'karpenter-leases': { type: 'string', default: karpenterGuardDefaults.leases },
  'karpenter-deployments': { type: 'string', default: karpenterGuardDefaults.deployments },
  'ignore-running-karpenter': { type: 'boolean', default: false },
  'leader-election-namespace': { type: 'string', default: 'nodesmith' },
  'log-level': { type: 'string', default: 'info' },
} as const;

export const runUsage = Object.keys(runFlagSpec).map((k) => `[--${k}]`).join(' ');
