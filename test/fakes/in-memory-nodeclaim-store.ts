import { mergeLabels } from './merge-labels.js';
import type { NodeClaim, NodeClaimStatus } from '../../domain/api/nodeclaim-schema.js';
import type { Clock } from '../../domain/clock.js';
import { StoreConflictError, type NodeClaimStore, type PatchStatusOptions } from '../../provisioner/ports/nodeclaim-store.js';

/**
 * A NodeClaimStore with the API server's semantics that the controllers rely on: deletion with
 * finalizers only sets deletionTimestamp, removing the last finalizer of a deleting object removes
 * it, and a stale resourceVersion makes a status patch fail with StoreConflictError.
 */
export class InMemoryNodeClaimStore implements NodeClaimStore {
  readonly #claims = new Map<string, NodeClaim>();
  readonly #clock: Clock;
  #version = 0;
  /** Names passed to delete(), in order. */
  readonly deleteCalls: string[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  create(claim: NodeClaim): Promise<NodeClaim> {
    const name = claim.metadata.name ?? '';
    if (this.#claims.has(name)) return Promise.reject(new Error(`nodeclaim ${name} already exists`));
    const stored: NodeClaim = {
      ...structuredClone(claim),
      metadata: {
        creationTimestamp: new Date(this.#clock.now()).toISOString(),
        ...structuredClone(claim.metadata),
        uid: `uid-${name}`,
        resourceVersion: this.#nextVersion(),
      },
    };
    this.#claims.set(name, stored);
    return Promise.resolve(structuredClone(stored));
  }

  get(name: string): Promise<NodeClaim | undefined> {
    const claim = this.#claims.get(name);
    return Promise.resolve(claim === undefined ? undefined : structuredClone(claim));
  }

  list(): Promise<NodeClaim[]> {
    return Promise.resolve([...this.#claims.values()].map((c) => structuredClone(c)));
  }

  delete(name: string): Promise<void> {
    this.deleteCalls.push(name);
    const claim = this.#claims.get(name);
    if (claim === undefined) return Promise.resolve();
    if ((claim.metadata.finalizers ?? []).length === 0) {
      this.#claims.delete(name);
      return Promise.resolve();
    }
    const deletionTimestamp = claim.metadata.deletionTimestamp ?? new Date(this.#clock.now()).toISOString();
    this.#put({ ...claim, metadata: { ...claim.metadata, deletionTimestamp } });
    return Promise.resolve();
  }

  patchStatus(name: string, status: Partial<NodeClaimStatus>, options: PatchStatusOptions = {}): Promise<NodeClaim | undefined> {
    const claim = this.#claims.get(name);
    if (claim === undefined) return Promise.resolve(undefined);
    if (options.resourceVersion !== undefined && options.resourceVersion !== claim.metadata.resourceVersion) {
      return Promise.reject(new StoreConflictError(`patching status of nodeclaim ${name}: conflict`));
    }
    const stored = this.#put({ ...claim, status: { ...claim.status, ...structuredClone(status) } });
    return Promise.resolve(structuredClone(stored));
  }

  addLabels(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    const claim = this.#claims.get(name);
    if (claim !== undefined) this.#put({ ...claim, metadata: { ...claim.metadata, labels: mergeLabels(claim.metadata.labels, labels) } });
    return Promise.resolve();
  }

  addAnnotations(name: string, annotations: Readonly<Record<string, string>>): Promise<void> {
    const claim = this.#claims.get(name);
    if (claim !== undefined) this.#put({ ...claim, metadata: { ...claim.metadata, annotations: { ...claim.metadata.annotations, ...annotations } } });
    return Promise.resolve();
  }

  addFinalizer(name: string, finalizer: string): Promise<void> {
    const claim = this.#claims.get(name);
    const finalizers = claim?.metadata.finalizers ?? [];
    if (claim !== undefined && !finalizers.includes(finalizer)) {
      this.#put({ ...claim, metadata: { ...claim.metadata, finalizers: [...finalizers, finalizer] } });
    }
    return Promise.resolve();
  }

  removeFinalizer(name: string, finalizer: string): Promise<void> {
    const claim = this.#claims.get(name);
    if (claim === undefined) return Promise.resolve();
    const finalizers = (claim.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (finalizers.length === 0 && claim.metadata.deletionTimestamp !== undefined) this.#claims.delete(name);
    else this.#put({ ...claim, metadata: { ...claim.metadata, finalizers } });
    return Promise.resolve();
  }

  #put(claim: NodeClaim): NodeClaim {
    const stored = { ...claim, metadata: { ...claim.metadata, resourceVersion: this.#nextVersion() } };
    this.#claims.set(claim.metadata.name ?? '', stored);
    return stored;
  }

  #nextVersion(): string {
    this.#version += 1;
    return String(this.#version);
  }
}
