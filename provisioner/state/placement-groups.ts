import type { ResolvedPlacementGroup } from '../../domain/cloud/placement-group.js';

/**
 * The placement group each EC2NodeClass's placementGroupSelector resolved to, as the EC2NodeClass status controller
 * last resolved it. Karpenter keeps it in memory too (its placement group provider), not in the class's status: the
 * planner, consolidation and drift read it here. A class whose selector has no group here launches nothing until
 * one is resolved (after a restart: the controller's first pass).
 */
export class ResolvedPlacementGroups {
  readonly #byClass = new Map<string, ResolvedPlacementGroup>();

  /** What the class's selector resolved to now; undefined when it resolved to no group (the class is then not ready). */
  record(nodeClassName: string, group: ResolvedPlacementGroup | undefined): void {
    if (group === undefined) this.#byClass.delete(nodeClassName);
    else this.#byClass.set(nodeClassName, group);
  }

  get(nodeClassName: string): ResolvedPlacementGroup | undefined {
    return this.#byClass.get(nodeClassName);
  }
}
