import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { awaitsRegistration } from './registration.js';

/** What the wake reads of the cluster model (ClusterState). */
export interface RegistrationChanges {
  onChange(listener: (kind: string, key: string) => void): () => void;
  readonly nodeClaims: ReadonlyMap<string, NodeClaim>;
  nodeClaimOfNode(nodeName: string): NodeClaim | undefined;
}

/**
 * Wakes registration on the change that lets a NodeClaim register: its Node turning Ready or losing a taint, or the
 * NodeClaim itself changing (launched, or a newer version after a write conflict). Without it a NodeClaim launched
 * while registration idled waited out the 10 s idle requeue: a burst's NodeClaims turned Registered and Initialized
 * in waves 10 s apart, however soon their Nodes were Ready. Changes of Nodes and NodeClaims that nothing waits on (the
 * heartbeats of registered nodes, virtual nodes, unlaunched NodeClaims) wake nothing; the periodic pass stays as the
 * safety net. Returns the unsubscribe.
 */
export function wakeRegistrationOnProgress(changes: RegistrationChanges, wake: () => void): () => void {
  return changes.onChange((kind, key) => {
    if (kind === 'node' && awaitsRegistration(changes.nodeClaimOfNode(key))) wake();
    else if (kind === 'nodeclaim' && awaitsRegistration(changes.nodeClaims.get(key))) wake();
  });
}
