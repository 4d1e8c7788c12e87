import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';

/** NodeClaim reads and writes against the API server (a conflict must re-read there, not from the model). */
export type DisruptionClaimStore = Pick<NodeClaimStore, 'get' | 'patchStatus' | 'delete' | 'addAnnotations'>;

/** Counts a NodeClaim the controller deleted (`nodeclaims_disrupted_total`, shared with the lifecycle controllers). */
export type DisruptedCounter = (claim: NodeClaim, reason: string) => void;
