import * as k8s from '@kubernetes/client-node';
import type { Test } from 'tap';
import { startStack, type Stack, type StackOptions } from './stack.js';

export interface StackFixture {
  stack: Stack;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
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
  return { stack, kc, core: kc.makeApiClient(k8s.CoreV1Api) };
}
