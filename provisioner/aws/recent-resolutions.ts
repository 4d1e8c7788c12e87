import type { Clock } from '../../domain/clock.js';
import type { NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import type { NodeClassSpec, ResolvedNodeClass } from '../../domain/cloud/node-class.js';

interface Resolution {
  readonly atMs: number;
  readonly result: Promise<ResolvedNodeClass>;
}

/**
 * An EC2NodeClass's subnets, security groups and images as resolved in the last `ttlMs`, for launches. Karpenter
 * launches from what its EC2NodeClass controller resolved (the class's status) and its providers keep Describe
 * answers for a while; nodesmith resolved the class afresh for every launch, three or four Describe calls each, and
 * the 10,000-pod race's 176 launches in its first seconds sent moto some 700 of them at once: it reset connections,
 * and 518 binds failed "resolving ec2nodeclass default: TimeoutError: read ECONNRESET".
 *
 * `fresh` always asks EC2 (the status controller, which must see a change) and keeps its answer for launches;
 * `recent` answers from that, or from one call shared by every launch asking meanwhile. A failure is not kept.
 */
export class RecentResolutions {
  readonly #inner: NodeClassResolver;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  /** By the spec's JSON: a changed class (another selector, another profile) is resolved anew. */
  readonly #bySpec = new Map<string, Resolution>();

  readonly fresh: NodeClassResolver = { resolve: (spec) => this.#resolve(spec, JSON.stringify(spec)) };
  readonly recent: NodeClassResolver = {
    resolve: (spec) => {
      const key = JSON.stringify(spec);
      const kept = this.#bySpec.get(key);
      return kept !== undefined && this.#clock.now() - kept.atMs < this.#ttlMs ? kept.result : this.#resolve(spec, key);
    },
  };

  constructor(inner: NodeClassResolver, clock: Clock, ttlMs = 60_000) {
    this.#inner = inner;
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  #resolve(spec: NodeClassSpec, key: string): Promise<ResolvedNodeClass> {
    const result = this.#inner.resolve(spec);
    const resolution = { atMs: this.#clock.now(), result };
    this.#forgetOld();
    this.#bySpec.set(key, resolution);
    result.catch(() => {
      if (this.#bySpec.get(key) === resolution) this.#bySpec.delete(key);
    });
    return result;
  }

  /** Classes come and go with their specs: what is past its time is dropped, so the map holds the live ones. */
  #forgetOld(): void {
    const now = this.#clock.now();
    for (const [key, resolution] of this.#bySpec) if (now - resolution.atMs >= this.#ttlMs) this.#bySpec.delete(key);
  }
}
