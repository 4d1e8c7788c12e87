import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';

// A port because two rooms launch replacements through it: disruption/ (MaterializingLauncher implements it) and
// static/, whose replicas are launched the same way; declared in disruption/ it tied the two rooms in a circle.
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
