import { KubeApiError } from '../../provisioner/kube/kube-rest.js';
import type { Lease } from '../../domain/core/lease.js';
import type { LeaseApi } from '../../provisioner/kube/leader-election.js';

type Params<M extends keyof LeaseApi> = Parameters<LeaseApi[M]>[0];

/**
 * Leases in memory with the API server's optimistic concurrency: create of an existing name and
 * replace with a stale resourceVersion fail with 409, reads of a missing Lease with 404.
 */
export class FakeLeaseApi implements LeaseApi {
  readonly leases = new Map<string, Lease>();
  /** While true every call fails as if the API server were unreachable. */
  down = false;
  #version = 0;

  readNamespacedLease(param: Params<'readNamespacedLease'>): Promise<Lease> {
    return this.#call(() => {
      const lease = this.leases.get(`${param.namespace}/${param.name}`);
      if (lease === undefined) throw new KubeApiError(404, '{"message":"not found"}', 'lease');
      return structuredClone(lease);
    });
  }

  createNamespacedLease(param: Params<'createNamespacedLease'>): Promise<Lease> {
    return this.#call(() => {
      const key = `${param.namespace}/${param.body.metadata?.name ?? ''}`;
      if (this.leases.has(key)) throw new KubeApiError(409, '{"message":"already exists"}', 'lease');
      return this.#store(key, param.body);
    });
  }

  replaceNamespacedLease(param: Params<'replaceNamespacedLease'>): Promise<Lease> {
    return this.#call(() => {
      const key = `${param.namespace}/${param.name}`;
      const current = this.leases.get(key);
      if (current === undefined) throw new KubeApiError(404, '{"message":"not found"}', 'lease');
      if (param.body.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
        throw new KubeApiError(409, '{"message":"conflict"}', 'lease');
      }
      return this.#store(key, param.body);
    });
  }

  #store(key: string, body: Lease): Lease {
    this.#version += 1;
    const stored = structuredClone(body);
    stored.metadata ??= {};
    stored.metadata.resourceVersion = String(this.#version);
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  #call<T>(work: () => T): Promise<T> {
    try {
      if (this.down) throw new KubeApiError(503, '{"message":"unavailable"}', 'lease');
      return Promise.resolve(work());
    } catch (e: unknown) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
