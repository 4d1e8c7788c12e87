import type { LabelSelector } from './object-meta.js';

/** core/v1 TopologySpreadConstraint. */
export interface TopologySpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  /** DoNotSchedule or ScheduleAnyway. */
  readonly whenUnsatisfiable: string;
  readonly labelSelector?: LabelSelector;
  readonly minDomains?: number;
  /** Honor (default) or Ignore. */
  readonly nodeAffinityPolicy?: string;
  /** Honor or Ignore (default). */
  readonly nodeTaintsPolicy?: string;
  readonly matchLabelKeys?: readonly string[];
}
