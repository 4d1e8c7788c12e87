import type * as k8s from '@kubernetes/client-node';
import { overcommittedNodes } from '../e2e/e2e-support.js';
import { podsLeftBehind } from '../e2e/pods-left-behind.js';

/**
 * What must stay 0 in every sample of a race, under either controller (issue 37): nodes holding more than their
 * allocatable (a kubelet would refuse those pods), DaemonSet pods a node has no room for (a node without its CNI runs
 * nothing), and pods Unschedulable for more than 2 minutes while the NodePool could serve them. Each is kept by name
 * over every sample, so one that came and went still counts.
 */
export class RaceInvariants {
  readonly #core: k8s.CoreV1Api;
  readonly overcommitted = new Set<string>();
  readonly daemonsWithoutRoom = new Set<string>();
  readonly leftBehind = new Set<string>();
  #samples = 0;

  constructor(core: k8s.CoreV1Api) {
    this.#core = core;
  }

  /** One look at the cluster: three lists from the API server, the same for both controllers. */
  async sample(): Promise<void> {
    const [over, behind] = await Promise.all([overcommittedNodes({ core: this.#core }), podsLeftBehind({ core: this.#core })]);
    for (const line of over) this.overcommitted.add(line.split(':')[0] ?? line);
    for (const line of behind.daemonsWithoutRoom) this.daemonsWithoutRoom.add(line.split(' ')[0] ?? line);
    for (const line of behind.unschedulable) this.leftBehind.add(line.split(' ')[0] ?? line);
    this.#samples++;
  }

  /** "in 31 samples: 0 nodes over their allocatable, 0 DaemonSet pods without room, 0 pods Unschedulable over 2 minutes". */
  line(controller: string): string {
    const some = (set: ReadonlySet<string>): string => (set.size === 0 ? '' : ` (${[...set].slice(0, 5).join(', ')})`);
    return `  ${controller}: in ${String(this.#samples)} samples, ${String(this.overcommitted.size)} nodes over their allocatable${some(this.overcommitted)}, `
      + `${String(this.daemonsWithoutRoom.size)} DaemonSet pods without room${some(this.daemonsWithoutRoom)}, `
      + `${String(this.leftBehind.size)} pods Unschedulable for more than 2 minutes${some(this.leftBehind)}\n`;
  }
}
