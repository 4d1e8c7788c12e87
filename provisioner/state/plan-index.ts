import { parseResourceList } from '../../domain/resource-list.js';
import { noResources } from '../../domain/resource-sums.js';
import type { Amounts, ModelPlan, VirtualNodePlan } from '../index.js';

function toModelPlan(plan: VirtualNodePlan): ModelPlan {
  let room: Amounts;
  try {
    room = parseResourceList(plan.room);
  } catch {
    room = noResources;
  }
  return { plan, assigned: new Set(plan.assignedPods), room };
}

/**
 * The plans behind the virtual nodes, with their lookups prepared once per plan change: which pods each plan
 * holds, its room as amounts, and which real node each launched plan became (from the plan's own record, and
 * from the real Node's NodeClaim annotation, which is there before the plan records the launch).
 */
export class PlanIndex {
  readonly plans = new Map<string, VirtualNodePlan>();
  readonly #entries = new Map<string, ModelPlan>();
  /** Pod key → the virtual node whose plan assigned it. */
  readonly #planOfPod = new Map<string, string>();
  /** Real node name → the virtual node whose plan it materialises, while that plan lives. */
  readonly #materializedAs = new Map<string, string>();
  /** Virtual node name → the real node launched for it, from the real Node's NodeClaim annotation. */
  readonly #launchedAs = new Map<string, string>();

  upsert(plan: VirtualNodePlan): void {
    this.remove(plan.nodeName);
    this.plans.set(plan.nodeName, plan);
    this.#entries.set(plan.nodeName, toModelPlan(plan));
    for (const key of plan.assignedPods) this.#planOfPod.set(key, plan.nodeName);
    if (plan.materializedNode !== undefined) this.#materializedAs.set(plan.materializedNode, plan.nodeName);
  }

  /** Returns whether a plan was there. */
  remove(nodeName: string): boolean {
    const plan = this.plans.get(nodeName);
    if (plan === undefined) return false;
    const real = plan.materializedNode;
    if (real !== undefined && this.#materializedAs.get(real) === nodeName) this.#materializedAs.delete(real);
    for (const key of plan.assignedPods) if (this.#planOfPod.get(key) === nodeName) this.#planOfPod.delete(key);
    this.plans.delete(nodeName);
    this.#entries.delete(nodeName);
    return true;
  }

  entry(nodeName: string): ModelPlan | undefined {
    return this.#entries.get(nodeName);
  }

  /** The virtual node whose plan holds the pod, if any. */
  planOfPod(key: string): string | undefined {
    return this.#planOfPod.get(key);
  }

  /** A real node nodesmith launched, and the virtual node it was launched for (from the Node's annotation). */
  noteLaunched(realName: string, virtualName: string | undefined): void {
    if (virtualName !== undefined) this.#launchedAs.set(virtualName, realName);
  }

  forgetLaunched(realName: string, virtualName: string | undefined): void {
    if (virtualName !== undefined && this.#launchedAs.get(virtualName) === realName) this.#launchedAs.delete(virtualName);
  }

  /** The real node a virtual node became, by the plan's record or by the real Node's annotation. */
  realNodeOf(virtualName: string): string | undefined {
    return this.plans.get(virtualName)?.materializedNode ?? this.#launchedAs.get(virtualName);
  }

  /** The virtual node a real node materialises, by the plan's record. */
  materializedAs(realName: string): string | undefined {
    return this.#materializedAs.get(realName);
  }
}
