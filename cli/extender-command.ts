import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { defaultExtenderPort, serve } from '../extender/serve.js';
import { KubePodBinder } from '../provisioner/kube/binder.js';
import { startClusterInformers } from '../provisioner/kube/cluster-informers.js';
import { loadKubeConfig } from '../provisioner/kube/kube-config.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import { guardedCommand, type Command, type CommandIo } from './command.js';
import { reloadExtenderTls } from './extender-tls.js';
import { readTlsFiles } from '../webhooks/tls-reloader.js';
import { extenderSpec } from './command-specs.js';
import { podDeletionCostFlag, scaleInRankOf } from './pod-deletion-cost-flag.js';

const options = {
  host: { type: 'string', default: '0.0.0.0' },
  port: { type: 'string', default: String(defaultExtenderPort) },
  kubeconfig: { type: 'string' },
  'cert-file': { type: 'string' },
  'key-file': { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  ...podDeletionCostFlag,
} as const;

export interface ExtenderFlags {
  readonly host: string;
  readonly port: number;
  readonly kubeconfig: string | undefined;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly logLevel: string;
  readonly scaleInRank: boolean;
}

/** Parses every flag once and reports every problem together. */
export function parseExtenderFlags(argv: readonly string[]): ExtenderFlags | string[] {
  const { values } = parseArgs({ args: [...argv], options });
  const problems: string[] = [];
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`--port must be 0–65535, got "${values.port}"`);
  const certFile = values['cert-file'];
  const keyFile = values['key-file'];
  if ((certFile === undefined) !== (keyFile === undefined)) problems.push('--cert-file and --key-file go together (HTTPS), or neither (HTTP)');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(values['log-level'])) {
    problems.push(`--log-level must be one of fatal, error, warn, info, debug, trace, silent; got "${values['log-level']}"`);
  }
  const scaleInRank = scaleInRankOf(values['pod-deletion-cost'], problems);
  if (problems.length > 0) return problems;
  return Object.freeze({
    scaleInRank,
    host: values.host,
    port,
    kubeconfig: values.kubeconfig,
    tls: certFile === undefined || keyFile === undefined ? undefined : { certFile, keyFile },
    logLevel: values['log-level'],
  });
}

async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const flags = parseExtenderFlags(argv);
  if (Array.isArray(flags)) {
    io.stderr(`extender: invalid flags:\n${flags.map((p) => `  ${p}`).join('\n')}\n`);
    return 2;
  }
  let target;
  try {
    target = loadKubeConfig(flags.kubeconfig, { env: io.env ?? {} });
  } catch (error) {
    io.stderr(`extender: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const binder = KubePodBinder.fromKubeConfig(target);
  // The same model the provisioner keeps, fed by node and pod watches only: plans ride on the virtual nodes.
  // It answers /readyz with 503 until the initial lists are in.
  const state = new ClusterState();
  const informers = startClusterInformers(target, state, { kinds: 'extender', onError: (resource, e) => { io.stderr(`extender: watching ${resource} failed, retrying: ${e instanceof Error ? e.message.split('\n')[0] ?? '' : String(e)}\n`); } });
  const running = await serve({
    view: state,
    binder,
    registry: new Registry(),
    logLevel: flags.logLevel,
    scaleInRank: flags.scaleInRank,
    host: flags.host,
    port: flags.port,
    https: flags.tls === undefined ? undefined : readTlsFiles(flags.tls),
  });
  const stopTlsReload = flags.tls === undefined ? undefined : reloadExtenderTls(running.app, flags.tls);
  io.stdout(`nodesmith extender listening on ${running.url} (real nodes only: no provisioner in this process)\n`);
  await io.interrupted;
  // return503OnClosing answers late calls with 503 (kube-scheduler retries) while in-flight binds finish.
  stopTlsReload?.();
  // Binds in flight get a grace period; then connections still open (idle keep-alives included) are cut.
  const cut = setTimeout(() => { running.closeAllConnections(); }, 5_000);
  try {
    await running.close();
  } finally {
    clearTimeout(cut);
  }
  await binder.close();
  await informers.stop();
  return 0;
}

export const extenderCommand: Command = guardedCommand(extenderSpec, run);
