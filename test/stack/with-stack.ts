import * as k8s from '@kubernetes/client-node';
import type { Test } from 'tap';
import { ApiConnection } from '../../provisioner/kube/api-connection.js';
import { loadKubeConfig, type KubeTarget } from '../../provisioner/kube/kube-config.js';
import { KubeRest } from '../../provisioner/kube/kube-rest.js';
import { startStack, type Stack, type StackOptions } from './stack.js';

export interface StackFixture {
  stack: Stack;
  /** client-node, for the tests' own reads and writes (an independent client, not ours). */
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  /** nodesmith's own connection, for tests that drive its adapters. */
  target: KubeTarget;
  api: KubeRest;
}

/**
 * Starts the real stack for one tap test file and tears it down afterwards; when any assertion
 * failed, the tail of every component's log is printed so the failure explains itself.
 */
export async function withStack(t: Test, options: StackOptions = {}): Promise<StackFixture> {
  const stack = await startStack(options);
  t.teardown(async () => {
    if (!t.passing()) t.comment(`component logs (${stack.dir}):\n${stack.logTails(40)}`);
    await stack.stop();
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(stack.kubeconfigPath);
  const target = loadKubeConfig(stack.kubeconfigPath, { env: {} });
  const api = new KubeRest(new ApiConnection(target));
  // Registered after the stack's teardown, so it runs first: the pool closes while the API server is still up.
  t.teardown(() => api.close());
  return { stack, kc, core: kc.makeApiClient(k8s.CoreV1Api), target, api };
}
