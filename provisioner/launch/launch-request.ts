import type { Clock } from '../../domain/clock.js';
import { launchRequestAnnotation } from '../../domain/product-keys.js';
import type { Materializer } from '../index.js';
import type { NodeWriter } from '../ports/node-writer.js';
import type { ClusterState } from '../state/cluster-state.js';

export interface LeaderLaunchDeps {
  readonly state: ClusterState;
  readonly nodes: Pick<NodeWriter, 'annotate'>;
  /** This replica's own launcher; called only while it leads. */
  readonly local: Materializer;
  readonly isLeader: () => boolean;
  readonly clock: Clock;
  /** Names the asking replica in the request (the leader-election identity). */
  readonly identity: string;
  /** How long a standby waits for the leader's launch; below kube-scheduler's bind httpTimeout (60 s). Default 50 s. */
  readonly waitMs?: number;
  /** How often a waiting standby checks whether it has become the leader itself. Default 1 s. */
  readonly leadershipCheckMs?: number;
}

/**
 * The extender's launcher on every replica. kube-scheduler reaches the extender through a Service that selects
 * every Ready replica, so a bind to a virtual node can land on a standby. Only the leader launches (two launchers
 * could race for the same plan), so a standby asks the leader through the API server (an annotation on the
 * virtual node, which the leader's provisioner watches) and waits until the plan says which real node it became;
 * then it binds the pod there itself. If the leader dies meanwhile and this replica takes the Lease, it launches
 * the plan itself; the launch adopts a NodeClaim or instance the old leader left half-done.
 */
export class LeaderRoutedMaterializer implements Materializer {
  readonly #deps: LeaderLaunchDeps;

  constructor(deps: LeaderLaunchDeps) {
    this.#deps = deps;
  }

  async materialize(virtualNodeName: string): Promise<{ readonly nodeName: string }> {
    const { state, clock, isLeader } = this.#deps;
    if (isLeader()) return this.#deps.local.materialize(virtualNodeName);
    const launched = launchedNodeOf(state, virtualNodeName);
    if (launched !== undefined) return { nodeName: launched };
    await this.#deps.nodes.annotate(virtualNodeName, launchRequestAnnotation, `${this.#deps.identity} ${new Date(clock.now()).toISOString()}`);
    const waitMs = this.#deps.waitMs ?? 50_000;
    const deadline = clock.now() + waitMs;
    for (;;) {
      if (isLeader()) return this.#deps.local.materialize(virtualNodeName);
      const nodeName = launchedNodeOf(state, virtualNodeName);
      if (nodeName !== undefined) return { nodeName };
      if (clock.now() >= deadline) {
        throw new Error(`this replica is not the leader and the leader has not launched virtual node ${virtualNodeName} within ${String(waitMs / 1000)} s of being asked; kube-scheduler will retry the pod`);
      }
      await this.#changeOrTick(virtualNodeName);
    }
  }

  /** Resolves on the next change of the virtual node or its plan, or after the leadership check period. */
  async #changeOrTick(virtualNodeName: string): Promise<void> {
    let unsubscribe = (): void => undefined;
    const changed = new Promise<void>((resolve) => {
      unsubscribe = this.#deps.state.onChange((kind, key) => {
        if (key === virtualNodeName && (kind === 'node' || kind === 'plan')) resolve();
      });
    });
    try {
      await Promise.race([changed, this.#deps.clock.sleep(this.#deps.leadershipCheckMs ?? 1000)]);
    } finally {
      unsubscribe();
    }
  }
}

/**
 * The real node a plan became, once the leader recorded it; throws when the plan is gone (pruned, or launched and
 * done), so the waiting bind fails at once and kube-scheduler retries the pod against the nodes that exist now.
 */
function launchedNodeOf(state: ClusterState, virtualNodeName: string): string | undefined {
  const plan = state.plans.get(virtualNodeName);
  if (plan === undefined) {
    throw new Error(`virtual node ${virtualNodeName} is not in the current plan (pruned, or launched and done); kube-scheduler will retry the pod against the nodes that exist now`);
  }
  return plan.materializedNode;
}
