import { ApiException, type V1Lease } from '@kubernetes/client-node';
import type { LeaseApi } from '../../provisioner/kube/leader-election.js';

type Params<M extends keyof LeaseApi> = Parameters<LeaseApi[M]>[0];

/**
 * Leases in memory with the API server's optimistic concurrency: create of an existing name and
 * replace with a stale resourceVersion fail with 409, reads of a missing Lease with 404.
 */
export class FakeLeaseApi implements LeaseApi {
  readonly leases = new Map<string, V1Lease>();
  /** While true every call fails as if the API server were unreachable. */
  down = false;
  #version = 0;

  readNamespacedLease(param: Params<'readNamespacedLease'>): Promise<V1Lease> {
    return this.#call(() => {
      const lease = this.leases.get(`${param.namespace}/${param.name}`);
      if (lease === undefined) throw new ApiException(404, 'not found', '{}', {});
      return structuredClone(lease);
    });
  }

  createNamespacedLease(param: Params<'createNamespacedLease'>): Promise<V1Lease> {
    return this.#call(() => {
      const key = `${param.namespace}/${param.body.metadata?.name ?? ''}`;
      if (this.leases.has(key)) throw new ApiException(409, 'already exists', '{}', {});
      return this.#store(key, param.body);
    });
  }

  replaceNamespacedLease(param: Params<'replaceNamespacedLease'>): Promise<V1Lease> {
    return this.#call(() => {
      const key = `${param.namespace}/${param.name}`;
      const current = this.leases.get(key);
      if (current === undefined) throw new ApiException(404, 'not found', '{}', {});
      if (param.body.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
        throw new ApiException(409, 'conflict', '{}', {});
      }
      return this.#store(key, param.body);
    });
  }

  #store(key: string, body: V1Lease): V1Lease {
    this.#version += 1;
    const stored = structuredClone(body);
    stored.metadata ??= {};
    stored.metadata.resourceVersion = String(this.#version);
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  #call<T>(work: () => T): Promise<T> {
    try {
      if (this.down) throw new ApiException(503, 'unavailable', '{}', {});
      return Promise.resolve(work());
    } catch (e: unknown) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
