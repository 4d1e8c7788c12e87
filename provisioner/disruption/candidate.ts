import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { ConsolidationCandidate } from '../../domain/disruption/consolidation/consolidation-types.js';

/**
 * A node that passed Karpenter's candidate rules (`domain/disruption/candidate.ts`) for one pass, with what every
 * method needs already read from the cluster model: its NodeClaim and NodePool, its pods, its price and the
 * ordering facts. Methods never read the API; they read candidates and the model. The pure consolidation decisions
 * see only its ConsolidationCandidate part, which domain/ defines.
 */
export interface Candidate extends ConsolidationCandidate {
  readonly node: Node;
  readonly nodeClaim: NodeClaim;
  readonly nodePool: NodePool;
  /** Every pod bound to the node that is not finished. */
  readonly pods: readonly Pod[];
  /** Set when an eventual disruption went ahead over a pod-level block (drift with a terminationGracePeriod). */
  readonly overriddenBlock?: string;
}
