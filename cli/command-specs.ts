import { runUsage } from './run-flag-spec.js';

/**
 * Each subcommand's name, summary and usage, apart from its code: `--help` and dispatch read these without
 * importing the command, so a command's dependencies (AWS SDK, Kubernetes client, catalog, schemas) load
 * only when that command runs.
 */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
}

export const runSpec: CommandSpec = {
  name: 'run',
  summary: 'Run the provisioner, the scheduler extender and the admission webhooks in one process (--components selects)',
  usage: runUsage,
};

export const validateSpec: CommandSpec = {
  name: 'validate',
  summary: 'Validate NodePool, NodeClaim, EC2NodeClass, pods and workloads offline, exactly as the webhooks do',
  usage: '-f FILE_OR_DIR [-f FILE_OR_DIR ...] [--verbose] [--allow-empty] [--feature-gates StaticCapacity=true]',
};

export const certsSpec: CommandSpec = {
  name: 'certs',
  summary: 'Create a CA and a serving certificate for the webhooks and write the caBundle into the webhook configuration',
  usage: '[--out-dir certs] [--service nodesmith-webhooks] [--namespace nodesmith] [--dns-name N]... [--ip IP]... [--days 365] [--webhook-config FILE|""] [--secret-out FILE]',
};

export const webhooksSpec: CommandSpec = {
  name: 'webhooks',
  summary: 'Run the HTTPS admission webhook server (defaulting, validation, pod toleration, binding guard)',
  usage: '--cert-file tls.crt --key-file tls.key [--port 9443] [--host 0.0.0.0] [--product-service-account system:serviceaccount:nodesmith:nodesmith] [--excluded-namespaces kube-system,nodesmith] [--feature-gates StaticCapacity=true] [--log-level info]',
};

export const extenderSpec: CommandSpec = {
  name: 'extender',
  summary: 'Run the kube-scheduler extender (filter, prioritize, bind) fed by node and pod informers',
  usage: '[--port 8444] [--host 0.0.0.0] [--kubeconfig path] [--cert-file tls.crt --key-file tls.key] [--log-level info] [--pod-deletion-cost by-node|none]',
};

export const planSpec: CommandSpec = {
  name: 'plan',
  summary: 'show the nodes nodesmith would launch for these manifests (offline, embedded EC2 catalog)',
  usage: '-f FILE_OR_DIR [-f …] [--output table|json] [--region us-east-1] [--no-validate] [--feature-gates NodeOverlay=true]',
};

export const topSpec: CommandSpec = {
  name: 'top',
  summary: 'A live view of every node, real and planned: type, zone, NodePool, CPU and memory requested, pods, $/h, disruption state; totals and pending pods',
  usage: '[--kubeconfig path] [--once] [--sort cost|cpu|memory|age|name] [--nodepool NAME] [--region R] [--width N] [--interval 1] [--timeout 30] [--feature-gates NodeOverlay=true]',
};

export const disruptionSpec: CommandSpec = {
  name: 'disruption',
  summary: 'show what consolidation would do now and why every other node stays (dry run: live cluster or a dump)',
  usage: '(-f DUMP_OR_DIR [-f …] | [--kubeconfig path] | --leader http://HOST:HEALTH_PORT) [--output table|json] [--consolidation-min-savings 10%|$0.05/h] [--feature-gates SpotToSpotConsolidation=true,NodeOverlay=true] [--region us-east-1] [--now 2026-01-01T00:00:00Z]',
};
