import type { LabelSelector, ObjectMeta } from './object-meta.js';

/** policy/v1 PodDisruptionBudget (subset). `status.disruptionsAllowed` is kube-controller-manager's verdict. */
export interface PodDisruptionBudget {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly selector?: LabelSelector;
    readonly minAvailable?: number | string;
    readonly maxUnavailable?: number | string;
  };
  readonly status?: { readonly disruptionsAllowed?: number; readonly currentHealthy?: number; readonly desiredHealthy?: number; readonly expectedPods?: number };
}
