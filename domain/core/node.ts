import type { ObjectMeta } from './object-meta.js';
import type { QuantityValue } from './pod.js';
import type { Taint } from './taint.js';

/** core/v1 NodeSpec (subset). */
export interface NodeSpec {
  readonly providerID?: string;
  readonly unschedulable?: boolean;
  readonly taints?: readonly Taint[];
}

/** core/v1 NodeCondition (subset). */
export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly lastTransitionTime?: string;
}

/** core/v1 NodeStatus (subset). */
export interface NodeStatus {
  readonly capacity?: Readonly<Record<string, QuantityValue>>;
  readonly allocatable?: Readonly<Record<string, QuantityValue>>;
  readonly conditions?: readonly NodeCondition[];
}

/** core/v1 Node (subset, Kubernetes field names). */
export interface Node {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec?: NodeSpec;
  readonly status?: NodeStatus;
}
