import { addInto, noResources, type ResourceSums } from '../../domain/resource-sums.js';
import type { Amounts, ModelPlan } from '../index.js';
import type { PodAccounting } from './pod-accounting.js';
import type { PlanIndex } from './plan-index.js';

/**
 * What is left for one more pod on a plan's node, from the pods' accounting and the plans. Pure over its
 * inputs; the model calls it per filter candidate, so it costs O(the plan's assigned pods).
 */
export class RoomCalculator {
  readonly #pods: PodAccounting;
  readonly #plans: PlanIndex;
  readonly #allocatableOf: (nodeName: string) => Amounts | undefined;

  constructor(pods: PodAccounting, plans: PlanIndex, allocatableOf: (nodeName: string) => Amounts | undefined) {
    this.#pods = pods;
    this.#plans = plans;
    this.#allocatableOf = allocatableOf;
  }

  /**
   * What is left on a virtual node for one more pod that the plan did not assign: the room minus pods bound or
   * binding there (on the real node it became, once it is launched: bound there, or held there by a bind on its
   * way) and minus the assigned pods still pending, whose place the plan promised. The launch empties the room,
   * so from then on only the plan's own pods come this way; others reach the real node through its own check.
   */
  roomLeft(entry: ModelPlan, nodeName: string): ResourceSums {
    const left: ResourceSums = { ...entry.room };
    addInto(left, this.#pods.usage(nodeName), -1);
    const real = this.#plans.realNodeOf(nodeName);
    if (real !== undefined && real !== nodeName) {
      addInto(left, this.#pods.usage(real), -1);
      addInto(left, this.#pods.reservedOn(real), -1);
    }
    return this.#withoutPromised(left, entry, nodeName);
  }

  /**
   * What is left on a launched node for a pod its plan did not assign. kube-scheduler counts only the pods
   * already bound to it; the pods still binding through the virtual node, and the assigned ones not yet
   * scheduled, are on their way there too, and placing another pod in their room would overcommit the node. Before
   * the model has seen the real Node, the virtual node's allocatable (the planned type's) stands for it: the plan's
   * room was emptied at the launch.
   */
  roomLeftOnLaunched(realName: string, virtualName: string, entry: ModelPlan): ResourceSums {
    const left: ResourceSums = { ...(this.#allocatableOf(realName) ?? this.#allocatableOf(virtualName) ?? entry.room) };
    addInto(left, this.#pods.usage(realName), -1);
    addInto(left, this.#pods.reservedOn(realName), -1);
    return this.#withoutPromised(left, entry, virtualName);
  }

  /** Takes off the pods binding to the virtual node and the assigned pods still pending. */
  #withoutPromised(left: ResourceSums, entry: ModelPlan, virtualName: string): ResourceSums {
    addInto(left, this.#pods.reservedOn(virtualName), -1);
    for (const key of entry.assigned) {
      if (!this.#pods.isKnown(key) || this.#pods.boundNodeOf(key) !== undefined || this.#pods.isReserved(key)) continue;
      addInto(left, this.#pods.requestsOf(key) ?? noResources, -1);
    }
    return left;
  }
}
