import type { NodeClaim, NodeClaimStatus } from '../../domain/api/nodeclaim-schema.js';
import {
  StoreConflictError,
  type NodeClaimStore,
  type PatchStatusOptions,
} from '../ports/nodeclaim-store.js';
import { isNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const nodeClaims = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' } as const;

/** How many times a finalizer edit re-reads after losing an optimistic-concurrency race. */
const finalizerAttempts = 5;


function wrap(action: string, e: unknown): Error {
  if (statusCode(e) === 409) return new StoreConflictError(`${action}: conflict`, { cause: e });
  const detail = e instanceof Error ? e.message : String(e);
  return new Error(`${action}: ${detail}`, { cause: e });
}

/** NodeClaimStore over the API server (`karpenter.sh/v1` nodeclaims, cluster-scoped). */
export class KubeNodeClaimClient implements NodeClaimStore {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async create(claim: NodeClaim): Promise<NodeClaim> {
    try {
      return await this.#api.create<NodeClaim>(nodeClaims, claim);
    } catch (e: unknown) {
      throw wrap(`creating nodeclaim ${claim.metadata.name ?? ''}`, e);
    }
  }

  async get(name: string): Promise<NodeClaim | undefined> {
    try {
      return await this.#api.get<NodeClaim>({ ...nodeClaims, name });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw wrap(`reading nodeclaim ${name}`, e);
    }
  }

  async list(): Promise<NodeClaim[]> {
    try {
      const body = await this.#api.get<{ items?: NodeClaim[] }>(nodeClaims);
      return body.items ?? [];
    } catch (e: unknown) {
      throw wrap('listing nodeclaims', e);
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.#api.delete({ ...nodeClaims, name });
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw wrap(`deleting nodeclaim ${name}`, e);
    }
  }

  async patchStatus(name: string, status: Partial<NodeClaimStatus>, options: PatchStatusOptions = {}): Promise<NodeClaim | undefined> {
    // A resourceVersion in a merge patch makes the API server refuse it (409) if the object moved on.
    const metadata = options.resourceVersion === undefined ? {} : { metadata: { resourceVersion: options.resourceVersion } };
    try {
      return await this.#api.mergePatch<NodeClaim>({ ...nodeClaims, name, subresource: 'status' }, { ...metadata, status });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw wrap(`patching status of nodeclaim ${name}`, e);
    }
  }

  async addFinalizer(name: string, finalizer: string): Promise<void> {
    await this.#editFinalizers(name, (list) => (list.includes(finalizer) ? undefined : [...list, finalizer]));
  }

  async removeFinalizer(name: string, finalizer: string): Promise<void> {
    await this.#editFinalizers(name, (list) => (list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined));
  }

  async addLabels(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    await this.#mergeMetadata(name, { labels }, 'labelling');
  }

  async addAnnotations(name: string, annotations: Readonly<Record<string, string>>): Promise<void> {
    await this.#mergeMetadata(name, { annotations }, 'annotating');
  }

  /** A merge patch of a map adds and overwrites keys only: no read, no conflict with other writers' keys. */
  async #mergeMetadata(name: string, metadata: { labels?: Readonly<Record<string, string | null>>; annotations?: Readonly<Record<string, string>> }, verb: string): Promise<void> {
    try {
      await this.#api.mergePatch({ ...nodeClaims, name }, { metadata });
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw wrap(`${verb} nodeclaim ${name}`, e);
    }
  }

  /**
   * Finalizers are a plain list that other controllers edit too, so each edit is a merge patch
   * pinned to the resourceVersion it was computed from, retried on conflict.
   */
  async #editFinalizers(name: string, edit: (list: readonly string[]) => string[] | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const claim = await this.get(name);
      if (claim === undefined) return;
      const next = edit(claim.metadata.finalizers ?? []);
      if (next === undefined) return;
      try {
        await this.#api.mergePatch({ ...nodeClaims, name }, { metadata: { finalizers: next, resourceVersion: claim.metadata.resourceVersion } });
        return;
      } catch (e: unknown) {
        if (isNotFound(e)) return;
        if (statusCode(e) !== 409 || attempt >= finalizerAttempts) throw wrap(`updating finalizers of nodeclaim ${name}`, e);
      }
    }
  }
}
