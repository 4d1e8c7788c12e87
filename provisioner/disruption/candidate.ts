import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { OrderFacts } from '../../domain/disruption/candidate-order.js';

/**
 * A node that passed Karpenter's candidate rules (`domain/disruption/candidate.ts`) for one pass, with what every
 * method needs already read from the cluster model: its NodeClaim and NodePool, its pods, its price and the
 * ordering facts. Methods never read the API; they read candidates and the model.
 */
export interface Candidate {
  readonly nodeName: string;
  readonly node: Node;
  readonly nodeClaim: NodeClaim;
  readonly nodePool: NodePool;
  /** `metadata.name` of the NodePool, the key of every per-NodePool budget. */
  readonly nodePoolName: string;
  /** Every pod bound to the node that is not finished. */
  readonly pods: readonly Pod[];
  /** The pods that would need a place elsewhere (not DaemonSet, mirror, finished or deleting pods). */
  readonly reschedulablePods: readonly Pod[];
  readonly instanceType: string | undefined;
  readonly capacityType: string | undefined;
  readonly zone: string | undefined;
  /** Hourly price of the node's offering (0 when the catalog does not know it). */
  readonly pricePerHour: number;
  /** Savings ratio, disruption cost and drift age, for `consolidationOrder` and `driftOrder`. */
  readonly order: OrderFacts;
  /** Set when an eventual disruption went ahead over a pod-level block (drift with a terminationGracePeriod). */
  readonly overriddenBlock?: string;
}
