import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider, NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import type { LaunchedWith, ResolvedNow } from '../../domain/disruption/resolved-drift.js';
import { nodeClassSpecOf } from '../launch/node-class-spec.js';

/** What resolved drift compares: the EC2NodeClass's selectors now, and what each instance was launched with. */
export interface ResolvedDriftFacts {
  /** Undefined while the EC2NodeClass cannot be resolved (not ready, or the lookup failed): nothing drifts on it then. */
  resolved(nodeClass: EC2NodeClass): Promise<ResolvedNow | undefined>;
  /** Launch facts by providerID; an instance missing from the answer is left alone until the next refresh. */
  launched(): Promise<ReadonlyMap<string, LaunchedWith>>;
}

export interface CloudDriftFactsOptions {
  readonly resolver: NodeClassResolver;
  readonly cloud: Pick<CloudProvider, 'list'>;
  readonly clock: Clock;
  /** How long an answer is reused (default 5 min, Karpenter's drift recheck); a changed EC2NodeClass spec is resolved at once. */
  readonly refreshMs?: number;
}

interface Cached<T> {
  readonly key: string;
  readonly atMs: number;
  readonly value: T;
}

/**
 * Resolved facts from the cloud, through the same resolver the launch path uses (so an AMI alias is read from its
 * SSM parameter exactly as a launch would read it), with one DescribeInstances for every instance. Answers are
 * reused for `refreshMs`: the drift pass runs on every NodeClaim change, and the EC2 calls must not follow it.
 */
export class CloudDriftFacts implements ResolvedDriftFacts {
  readonly #o: CloudDriftFactsOptions;
  readonly #resolved = new Map<string, Cached<ResolvedNow | undefined>>();
  #launched: Cached<ReadonlyMap<string, LaunchedWith>> | undefined;

  constructor(options: CloudDriftFactsOptions) {
    this.#o = options;
  }

  async resolved(nodeClass: EC2NodeClass): Promise<ResolvedNow | undefined> {
    const spec = nodeClassSpecOf(nodeClass);
    const key = JSON.stringify(spec);
    const cached = this.#resolved.get(spec.name);
    if (cached?.key === key && this.#fresh(cached)) return cached.value;
    let value: ResolvedNow | undefined;
    try {
      const r = await this.#o.resolver.resolve(spec);
      value = {
        amiIds: new Set(r.amis.map((a) => a.id)),
        subnetIds: new Set(r.subnets.map((s) => s.id)),
        securityGroupIds: new Set(r.securityGroups.map((g) => g.id)),
      };
    } catch {
      // Not ready or a failed lookup: deciding drift on an empty answer would replace every node.
      value = undefined;
    }
    this.#resolved.set(spec.name, { key, atMs: this.#o.clock.now(), value });
    return value;
  }

  async launched(): Promise<ReadonlyMap<string, LaunchedWith>> {
    if (this.#launched !== undefined && this.#fresh(this.#launched)) return this.#launched.value;
    const byProviderId = new Map<string, LaunchedWith>();
    for (const i of await this.#o.cloud.list()) {
      byProviderId.set(i.providerID, {
        ...(i.imageId === '' ? {} : { imageId: i.imageId }),
        ...(i.subnetId === undefined ? {} : { subnetId: i.subnetId }),
        ...(i.securityGroupIds === undefined ? {} : { securityGroupIds: i.securityGroupIds }),
      });
    }
    this.#launched = { key: '', atMs: this.#o.clock.now(), value: byProviderId };
    return byProviderId;
  }

  #fresh(cached: Cached<unknown>): boolean {
    return this.#o.clock.now() - cached.atMs < (this.#o.refreshMs ?? 300_000);
  }
}
