import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import type { VirtualNodePlan } from '../index.js';
import { nodeClaimNameOf } from '../launch/nodeclaim-objects.js';
import { planFor } from '../state/claim-plan.js';
import type { LaunchedReplacement, ReplacementLauncher } from '../ports/replacement-launcher.js';

/** The materializer as a command uses it: a plan handed over directly, never published as a virtual node. */
export interface PlanLauncher {
  materialize(virtualNodeName: string, plan?: VirtualNodePlan): Promise<{ readonly nodeName: string }>;
}

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 7).padEnd(5, '0');
}

/**
 * A replacement goes through the same path as every launch (NodeClaim first, then the instance, then the real
 * Node), named like any plan's NodeClaim. Its plan is not published as a virtual node: kube-scheduler must not
 * offer a replacement's room to other pods before it exists, and the planner must not prune it because none of
 * its pods is pending (they still run on the candidate).
 */
export class MaterializingLauncher implements ReplacementLauncher {
  readonly #materializer: PlanLauncher;
  readonly #suffix: () => string;

  constructor(materializer: PlanLauncher, suffix: () => string = randomSuffix) {
    this.#materializer = materializer;
    this.#suffix = suffix;
  }

  nameFor(planned: PlannedNodeClaim): string {
    return `${planned.nodePool}-${this.#suffix()}`;
  }

  async launch(planned: PlannedNodeClaim, nodeClaimName: string): Promise<LaunchedReplacement> {
    const plan = planFor(planned, nodeClaimName);
    const { nodeName } = await this.#materializer.materialize(plan.nodeName, plan);
    return { nodeClaimName: nodeClaimNameOf(plan.nodeName), nodeName };
  }
}
