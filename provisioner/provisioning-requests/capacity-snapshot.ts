import type { Pod } from '../../domain/core/pod.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { simulate } from '../../domain/simulation/simulate.js';
import type { SimulationInput, SimulationResult, SnapshotNode } from '../../domain/simulation/simulation-input.js';
import type { ClusterState } from '../state/cluster-state.js';
import { simulationInputFor, volumeRequirementsOf } from '../state/snapshot.js';

/** Where a placement got: how many of the pods found a place, and why each other one did not. */
export interface Placement {
  readonly placed: number;
  readonly unplaced: SimulationResult['unschedulable'];
}

/**
 * The cluster as a capacity check sees it: the nodes there are and the nodes already planned (virtual nodes,
 * launches on their way), exactly as the planner's snapshot shows them, and no NodePool allowed to open a node. Pods
 * are placed by the one simulation, so a check follows the same rules as every plan (affinity, spread, taints,
 * volumes, DaemonSet room). Like Cluster Autoscaler's forked cluster snapshot, a placement can be kept (committed):
 * booked requests' pods first, then each request found to fit, so one pass never promises the same room twice.
 */
export class CapacitySnapshot {
  readonly #state: ClusterState;
  readonly #input: SimulationInput;
  readonly #nodePools: SimulationInput['nodePools'];
  #nodes: readonly SnapshotNode[];

  /** `unavailable`: the ICE cache, which only a scale-up's plan (`plan`) reads: a check opens no node. */
  constructor(state: ClusterState, instanceTypes: readonly InstanceType[], unavailable: ReadonlySet<string> = new Set()) {
    this.#state = state;
    const input = simulationInputFor(state, { pods: [], instanceTypes, unavailable });
    this.#input = { ...input, nodePools: [] };
    this.#nodePools = input.nodePools;
    this.#nodes = input.nodes;
  }

  /**
   * A best-effort-atomic scale-up's plan: all the pods at once, on the nodes there are (their free room, less what
   * is booked or kept already) and on new NodeClaims of the NodePools that can launch, within their limits, by the
   * same simulation as every plan. Nothing is kept: the caller launches it, or not.
   */
  plan(pods: readonly Pod[]): SimulationResult {
    return simulate({ ...this.#input, nodePools: this.#nodePools, nodes: this.#nodes, pendingPods: pods, volumeRequirements: volumeRequirementsOf(this.#state, pods) });
  }

  /**
   * Places the pods. `all-or-none` keeps their room taken only when every one found a place (a check);
   * `whatever-fits` keeps whatever did (a booking, as CA books: some room held beats none).
   */
  place(pods: readonly Pod[], keep: 'all-or-none' | 'whatever-fits'): Placement {
    if (pods.length === 0) return { placed: 0, unplaced: [] };
    const result = simulate({ ...this.#input, nodes: this.#nodes, pendingPods: pods, volumeRequirements: volumeRequirementsOf(this.#state, pods) });
    const placed = result.existing.reduce((n, e) => n + e.pods.length, 0);
    if (keep === 'whatever-fits' || placed === pods.length) this.#commit(result.existing);
    return { placed, unplaced: result.unschedulable };
  }

  #commit(existing: SimulationResult['existing']): void {
    const added = new Map(existing.map((e) => [e.node, e.pods]));
    this.#nodes = this.#nodes.map((node) => {
      const pods = added.get(node.name);
      return pods === undefined ? node : { ...node, pods: [...node.pods, ...pods] };
    });
  }
}
