import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import type { NodeClaimStore } from '../nodeclaim-store.js';

/** NodeClaim reads and writes against the API server (a conflict must re-read there, not from the model). */
export type DisruptionClaimStore = Pick<NodeClaimStore, 'get' | 'patchStatus' | 'delete' | 'addAnnotations'>;

/** A replacement that exists: its NodeClaim and its real Node's name. */
export interface LaunchedReplacement {
  readonly nodeClaimName: string;
  readonly nodeName: string;
}

/** Launches a command's replacement through the materialisation path every plan takes. */
export interface ReplacementLauncher {
  /** A fresh name for the replacement's NodeClaim, chosen before the launch so the command can record it first. */
  nameFor(planned: PlannedNodeClaim): string;
  /** Launches it as the NodeClaim `nodeClaimName`. */
  launch(planned: PlannedNodeClaim, nodeClaimName: string): Promise<LaunchedReplacement>;
}

/** Counts a NodeClaim the controller deleted (`nodeclaims_disrupted_total`, shared with the lifecycle controllers). */
export type DisruptedCounter = (claim: NodeClaim, reason: string) => void;
