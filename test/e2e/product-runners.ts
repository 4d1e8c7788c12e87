import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { startNodesmith, type RunningNodesmith } from '../../cli/app.js';
import { imageLaunch } from '../image/image-launch.js';
import type { Moto } from '../stack/moto.js';
import type { ServiceProxy } from '../stack/service-proxy.js';
import type { Stack } from '../stack/stack.js';
import { NodesmithProcess } from './nodesmith-process.js';
import type { ProductStackOptions } from './product-stack.js';
import { startReplicaSet, type Replica, type ReplicaSet } from './replica-set.js';

// How the product stack runs nodesmith: in this process, as a child process, from its image, or as replicas.

function tailOf(path: string, lines = 40): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
/** nodesmith in this process or as a child, behind one interface. */
export interface Runner { readonly inProcess: RunningNodesmith | undefined; readonly pid: number | undefined; crashAndRestart(): Promise<void>; stop(): Promise<void> }

async function startRunner(config: NodesmithConfig, options: ProductStackOptions, stack: Stack, moto: Moto): Promise<Runner> {
  if (options.image !== undefined) return imageRunner(config, options.image, stack, moto);
  if (options.childProcess === true) {
    const child = new NodesmithProcess(config, join(stack.dir, 'nodesmith.log'), moto.credentials, { compiled: options.compiled === true });
    await child.start();
    return processRunner(child);
  }
  let running = await startNodesmith(config);
  const runner = {
    get inProcess(): RunningNodesmith { return running; },
    pid: undefined,
    // In-process there is no SIGKILL: stop() is the closest we get (it lets in-flight work finish).
    crashAndRestart: async (): Promise<void> => { await running.stop(); running = await startNodesmith(config); },
    stop: (): Promise<void> => running.stop(),
  };
  return runner;
}

/** A nodesmith child process: a crash is a SIGKILL and a start; `release` runs after it stops for good. */
function processRunner(child: NodesmithProcess, release: () => Promise<void> = () => Promise.resolve()): Runner {
  return {
    inProcess: undefined,
    get pid() { return child.pid; },
    crashAndRestart: async () => { await child.kill(); await child.start(); },
    stop: async () => { await child.stop(); await release(); },
  };
}

/** Several replicas: a crash is the first replica's. */
function replicaRunner(set: ReplicaSet): Runner {
  const first = set.replicas[0]?.process;
  return {
    inProcess: undefined,
    get pid() { return first?.pid; },
    crashAndRestart: async () => { await first?.kill(); await first?.start(); },
    stop: () => set.stop(),
  };
}

/** One runner, or several replicas behind their Services; `served` is where the API server and kube-scheduler call. */
export async function startReplicas(config: NodesmithConfig, options: ProductStackOptions, stack: Stack, moto: Moto): Promise<{ runner: Runner; replicas: readonly Replica[]; extenderService?: ServiceProxy; served: { webhook: number; extender: number; healthUrl: string } }> {
  if ((options.replicas ?? 1) <= 1) {
    const served = { webhook: config.webhooks.port, extender: config.extender.port, healthUrl: `http://127.0.0.1:${String(config.health.port)}` };
    return { runner: await startRunner(config, options, stack, moto), replicas: [], served };
  }
  const set = await startReplicaSet(config, { count: options.replicas ?? 1, compiled: options.compiled === true, logDir: stack.dir, credentials: moto.credentials, caCert: await readFile(stack.pki.caCert) });
  return { runner: replicaRunner(set), replicas: set.replicas, extenderService: set.extenderService, served: { webhook: set.webhookService.port, extender: set.extenderService.port, healthUrl: set.replicas[0]?.healthUrl ?? '' } };
}

/** The last lines of every log, nodesmith's own when it runs as one or more processes. */
export function productLogTails(stack: Stack, moto: Moto, options: ProductStackOptions, replicas: readonly Replica[]): string {
  const single = options.childProcess === true || options.image !== undefined ? `\n--- nodesmith ---\n${tailOf(join(stack.dir, 'nodesmith.log'))}` : '';
  const each = replicas.map((_, i) => `\n--- nodesmith-${String(i)} ---\n${tailOf(join(stack.dir, `nodesmith-${String(i)}.log`))}`).join('');
  return `${stack.logTails(30)}\n--- moto ---\n${moto.tail(20)}${single}${each}`;
}

/** nodesmith from its image: the kubeconfig and webhook certificate are handed in read-only, as a Secret would be. */
async function imageRunner(config: NodesmithConfig, image: string, stack: Stack, moto: Moto): Promise<Runner> {
  const kubeconfig = config.kubeconfig ?? stack.kubeconfigPath;
  const launch = await imageLaunch(image, [kubeconfig, config.webhooks.certFile, config.webhooks.keyFile], stack.dir);
  const inside: NodesmithConfig = {
    ...config, kubeconfig: launch.inside(kubeconfig),
    webhooks: { ...config.webhooks, certFile: launch.inside(config.webhooks.certFile), keyFile: launch.inside(config.webhooks.keyFile) },
  };
  const child = new NodesmithProcess(inside, join(stack.dir, 'nodesmith.log'), moto.credentials, { image: launch });
  try {
    await child.start();
  } catch (error) {
    await child.stop();
    await launch.dispose();
    throw error;
  }
  return processRunner(child, () => launch.dispose());
}

