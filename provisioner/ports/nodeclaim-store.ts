import type { NodeClaim, NodeClaimStatus } from '../../domain/api/nodeclaim-schema.js';

/** Karpenter's finalizer: the NodeClaim stays until its node is drained and its instance is gone. */

export interface PatchStatusOptions {
  /**
   * When set, the API server refuses the patch (StoreConflictError) if the object changed since it
   * was read, so a controller never overwrites conditions another writer just set.
   */
  readonly resourceVersion?: string;
}

/** Another writer changed the object since it was read; re-read and try again on the next pass. */
export class StoreConflictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreConflictError';
  }
}

export function isStoreConflictError(e: unknown): e is StoreConflictError {
  return e instanceof StoreConflictError;
}

/**
 * NodeClaims (`karpenter.sh/v1`, cluster-scoped) as the lifecycle controllers and the materializer
 * see them. The Kubernetes adapter is provisioner/kube/nodeclaim-client.ts; tests use an in-memory one.
 */
export interface NodeClaimStore {
  create(claim: NodeClaim): Promise<NodeClaim>;
  /** Undefined when there is no such NodeClaim. */
  get(name: string): Promise<NodeClaim | undefined>;
  list(): Promise<NodeClaim[]>;
  /**
   * Requests deletion and returns; finalizers may keep the object (with a deletionTimestamp) until
   * termination removes them. Deleting a NodeClaim that is already gone is not an error.
   */
  delete(name: string): Promise<void>;
  /**
   * Merge-patches the status subresource. Arrays (conditions) are replaced whole, so send the full
   * list. Returns the stored object, or undefined when the NodeClaim is gone (deleted since it was read:
   * not an error, there is no status left to write).
   */
  patchStatus(name: string, status: Partial<NodeClaimStatus>, options?: PatchStatusOptions): Promise<NodeClaim | undefined>;
  /** Adds the finalizer if missing; no-op when present. */
  addFinalizer(name: string, finalizer: string): Promise<void>;
  /** Removes the finalizer if present; no-op when the NodeClaim or the finalizer is gone. */
  removeFinalizer(name: string, finalizer: string): Promise<void>;
  /** Adds or overwrites these labels (null removes one), leaving the others alone; no-op when the NodeClaim is gone. */
  addLabels(name: string, labels: Readonly<Record<string, string | null>>): Promise<void>;
  /** Adds or overwrites these annotations, leaving the others alone; no-op when the NodeClaim is gone. */
  addAnnotations(name: string, annotations: Readonly<Record<string, string>>): Promise<void>;
}
