import type * as k8s from '@kubernetes/client-node';
import { keepWatching } from './stage-watch.js';

/**
 * How many pods were bound by the end of each `stepS`-second step, from the ms after the start at which each was
 * first seen bound, up to the step in which the last one was: "2s 0, 4s 12, 6s 340, …".
 */
export function boundCurve(boundAtMs: readonly number[], stepS = 2): string {
  if (boundAtMs.length === 0) return 'no pod bound';
  const last = Math.max(...boundAtMs);
  const steps: string[] = [];
  for (let end = stepS * 1000; ; end += stepS * 1000) {
    steps.push(`${String(end / 1000)}s ${String(boundAtMs.filter((at) => at < end).length)}`);
    if (end > last) break;
  }
  return steps.join(', ');
}

export interface BindWatch {
  /** Ms after the start at which each pod (by uid) was first seen at all: its creation, through the webhooks. */
  readonly createdAtMs: ReadonlyMap<string, number>;
  /** Ms after the start at which each pod (by uid) was first seen with a node. */
  readonly boundAtMs: ReadonlyMap<string, number>;
  /** Why the watch ended before `stop`, each time (it is started again at once: binds in the gap count late). */
  readonly interruptions: readonly string[];
  stop(): void;
}

/**
 * Watches the namespace's pods and notes when each is first seen bound. Neither the pods' PodScheduled stamp (whole
 * seconds, and kwok rewrites the conditions when it makes the pod Running) nor the bench's own polls (a list of
 * 1,000 pods takes a while on a loaded machine) time a bind as closely.
 */
export async function watchBinds(kc: k8s.KubeConfig, namespace: string, startedMs: number): Promise<BindWatch> {
  const createdAtMs = new Map<string, number>();
  const boundAtMs = new Map<string, number>();
  const interruptions: string[] = [];
  const note = (_phase: string, pod: k8s.V1Pod): void => {
    const uid = pod.metadata?.uid;
    if (uid === undefined) return;
    if (!createdAtMs.has(uid)) createdAtMs.set(uid, Date.now() - startedMs);
    if ((pod.spec?.nodeName ?? '') !== '' && !boundAtMs.has(uid)) boundAtMs.set(uid, Date.now() - startedMs);
  };
  const stop = await keepWatching(kc, `/api/v1/namespaces/${namespace}/pods`, note, { startedMs, interruptions });
  return { createdAtMs, boundAtMs, interruptions, stop };
}
