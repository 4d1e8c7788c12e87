import type * as k8s from '@kubernetes/client-node';
import { overcommittedOf } from '../e2e/e2e-support.js';
import { leftBehindOf } from '../e2e/pods-left-behind.js';

/**
 * What must stay 0 in every sample of a race, under either controller (issue 37): nodes holding more than their
 * allocatable (a kubelet would refuse those pods), DaemonSet pods a node has no room for (a node without its CNI runs
 * nothing), and pods Unschedulable for more than 2 minutes while the NodePool could serve them. Each is kept by name
 * over every sample, so one that came and went still counts.
 */
export class RaceInvariants {
  readonly #core: k8s.CoreV1Api;
  /** By node, pod or pod: the first line a sample found, with its numbers or kube-scheduler's message and when. */
  readonly overcommitted = new Map<string, string>();
  readonly daemonsWithoutRoom = new Map<string, string>();
  readonly leftBehind = new Map<string, string>();
  #samples = 0;
  /** When the burst's Deployments were created: each first finding says when it was seen, to read back the binds around it. */
  readonly #startedMs = Date.now();

  constructor(core: k8s.CoreV1Api) {
    this.#core = core;
  }

  /** One look at the cluster: one list of pods and one of nodes (the API server's watch cache), the same for both controllers. */
  async sample(): Promise<void> {
    const [pods, nodes] = await Promise.all([this.#core.listPodForAllNamespaces({ resourceVersion: '0' }), this.#core.listNode({ resourceVersion: '0' })]);
    const over = overcommittedOf(nodes.items, pods.items);
    const behind = leftBehindOf(pods.items, nodes.items);
    const at = ` at ${((Date.now() - this.#startedMs) / 1000).toFixed(0)} s`;
    const keep = (into: Map<string, string>, key: string, line: string): void => { if (!into.has(key)) into.set(key, `${line}${at}`); };
    for (const line of over) keep(this.overcommitted, line.split(':')[0] ?? line, line);
    for (const line of behind.daemonsWithoutRoom) keep(this.daemonsWithoutRoom, line.split(' ')[0] ?? line, line);
    for (const line of behind.unschedulable) keep(this.leftBehind, line.split(' ')[0] ?? line, line);
    this.#samples++;
  }

  /** "in 31 samples: 0 nodes over their allocatable, 0 DaemonSet pods without room, 0 pods Unschedulable over 2 minutes". */
  line(controller: string): string {
    // The first three as found, so a count above 0 says where and why without a second run.
    const some = (found: ReadonlyMap<string, string>): string => (found.size === 0 ? '' : ` (${[...found.values()].slice(0, 3).join('; ')})`);
    return `  ${controller}: in ${String(this.#samples)} samples, ${String(this.overcommitted.size)} nodes over their allocatable${some(this.overcommitted)}, `
      + `${String(this.daemonsWithoutRoom.size)} DaemonSet pods without room${some(this.daemonsWithoutRoom)}, `
      + `${String(this.leftBehind.size)} pods Unschedulable for more than 2 minutes${some(this.leftBehind)}\n`;
  }
}
