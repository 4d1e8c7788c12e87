import { join } from 'node:path';
import { builtBinDir } from './binaries.js';
import { startComponent, type Component } from './component.js';
import { kwokNodeSelector, type Stack } from './stack.js';
import { waitFor } from './wait-for.js';

/** The sigs.k8s.io/karpenter release whose dra-kwok-driver/ the stack runs (build-dra-kwok-driver.sh builds it). */
export const draKwokDriverVersion = 'v1.15.0';

/** The annotation by which Karpenter's kwok DRA driver knows a node is a kwok node (Karpenter's kwok provider sets it). */
const kwokNodeAnnotation = 'kwok.x-k8s.io/node';

/** Where the driver's binary and the DRAConfig CRD beside it are, built once from the Go module proxy and cached. */
export function draKwokDriverBin(): Promise<string> {
  return builtBinDir('build-dra-kwok-driver.sh', [], { KARPENTER_CORE_VERSION: draKwokDriverVersion });
}

export interface RunningDraDriver {
  readonly component: Component;
  stop(): Promise<void>;
}

/**
 * Marks the nodes kwok plays with Karpenter's kwok annotation: the stack's kwok picks its nodes by label (every node
 * but the virtual ones), where Karpenter's kwok provider annotates the nodes it creates, and the driver looks for that.
 */
async function markKwokNodes(stack: Stack): Promise<void> {
  const r = await stack.kubectl(['annotate', 'nodes', '-l', kwokNodeSelector, `${kwokNodeAnnotation}=fake`, '--overwrite']);
  if (r.code !== 0 && !r.stderr.includes('No resources found')) throw new Error(`annotating kwok nodes: ${r.stderr}`);
}

/**
 * Karpenter's kwok DRA driver as an out-of-cluster process against the stack's API server, with its DRAConfig CRD
 * installed: it publishes every kwok node's ResourceSlices from the DRAConfigs (`configYaml`), polling every 30 s, as
 * a vendor's driver publishes a real node's. Its metrics and health ports are fixed (8082, 8083) by its main.go.
 */
export async function startDraKwokDriver(stack: Stack, configYaml: string): Promise<RunningDraDriver> {
  const bin = await draKwokDriverBin();
  const crd = await stack.kubectl(['apply', '-f', join(bin, 'draconfigs-crd.yaml')]);
  if (crd.code !== 0) throw new Error(`installing the DRAConfig CRD: ${crd.stderr}`);
  const established = await stack.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd/draconfigs.test.karpenter.sh']);
  if (established.code !== 0) throw new Error(`the DRAConfig CRD was not established: ${established.stderr}`);
  const config = await stack.kubectl(['apply', '-f', '-'], configYaml);
  if (config.code !== 0) throw new Error(`applying the DRAConfigs: ${config.stderr}`);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', KUBECONFIG: stack.kubeconfigPath };
  const component = startComponent({ name: 'dra-kwok-driver', command: join(bin, 'dra-kwok-driver'), args: [], logDir: stack.dir, env, graceMs: 1_000 });
  const crashed = component.exited.then((code) => { throw new Error(`dra-kwok-driver exited with ${String(code)} before it was ready\n${component.tail(60)}`); });
  try {
    await Promise.race([waitFor('dra-kwok-driver to be healthy', async () => ((await fetch('http://127.0.0.1:8083/healthz').then((r) => r.ok, () => false)) ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 }), crashed]);
  } catch (error) {
    await component.stop();
    throw error;
  }
  crashed.catch(() => undefined);
  const marking = new AbortController();
  const marker = (async () => {
    while (!marking.signal.aborted) {
      await markKwokNodes(stack).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return {
    component,
    stop: async () => {
      marking.abort();
      await marker;
      await component.stop();
    },
  };
}
