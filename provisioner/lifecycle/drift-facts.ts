import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider, LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import type { LaunchedWith, ResolvedNow } from '../../domain/disruption/resolved-drift.js';
import { firstUnmetKey, requirementsFromExpressions } from '../../domain/requirements/requirements.js';
import type { ResolvedPlacementGroups } from '../state/placement-groups.js';

/** What resolved drift compares: the EC2NodeClass's selectors now, and what each instance was launched with. */
export interface ResolvedDriftFacts {
  /** Undefined while the EC2NodeClass has no resolved status yet: nothing drifts on it then. */
  resolved(nodeClass: EC2NodeClass): Promise<ResolvedNow | undefined>;
  /**
   * What the instance was launched with; undefined when the cloud does not (yet) list it. `fresh`: read again
   * unless the last read is only seconds old, for a verdict a stale read could get wrong.
   */
  launchedWith(providerID: string, options?: { readonly fresh?: boolean }): Promise<LaunchedWith | undefined>;
}

export interface CloudDriftFactsOptions {
  readonly cloud: Pick<CloudProvider, 'list'>;
  readonly clock: Clock;
  /** The placement group each class's selector resolved to (state/placement-groups.ts); absent: no placement drift. */
  readonly placementGroups?: Pick<ResolvedPlacementGroups, 'get'>;
  /** How long the instances' launch facts are reused (default 5 min, Karpenter's drift recheck). */
  readonly refreshMs?: number;
}

/**
 * The EC2NodeClass's resolved subnets, security groups and AMIs as its status controller last wrote them (the same
 * resolver the launch path uses; an AMI alias is read from its SSM parameter), as Karpenter's drift reads them.
 * A status write comes back through the watch as an EC2NodeClass change, which rechecks every NodeClaim.
 */
export function resolvedFromStatus(nodeClass: EC2NodeClass): ResolvedNow | undefined {
  const status = nodeClass.status;
  if (status?.amis === undefined && status?.subnets === undefined && status?.securityGroups === undefined) return undefined;
  return {
    amiIds: new Set((status.amis ?? []).map((a) => a.id)),
    subnetIds: new Set((status.subnets ?? []).map((s) => s.id)),
    securityGroupIds: new Set((status.securityGroups ?? []).map((g) => g.id)),
    ...(status.capacityReservations === undefined ? {} : { capacityReservationIds: new Set(status.capacityReservations.map((r) => r.id)) }),
  };
}

/**
 * The image a launch would give this NodeClaim's instance type now: the first of status.amis (newest first) whose
 * requirements its labels meet (Karpenter's MapToInstanceTypes, as its AMI drift uses it), so a GPU node running
 * the standard image has drifted even while that image is still selected. Undefined when no image fits the labels
 * (a NodeClaim not yet labelled with its type): drift then falls back to "is the image still selected at all".
 */
export function imageForLabels(nodeClass: EC2NodeClass, labels: Readonly<Record<string, string>>): string | undefined {
  const labelOf = (key: string): string | undefined => labels[key];
  return nodeClass.status?.amis?.find((a) => firstUnmetKey(requirementsFromExpressions(a.requirements), labelOf) === undefined)?.id;
}

/** An instance launched after the last listing is looked for again, but not more often than this. */
const missRefreshMs = 10_000;

/**
 * Resolved sets from the EC2NodeClass status, and every instance's subnet and security groups from one
 * DescribeInstances, reused for `refreshMs` (or 10 s when an instance is missing from it): the drift pass runs on
 * NodeClaim changes, and the EC2 call must not follow it.
 */
export class CloudDriftFacts implements ResolvedDriftFacts {
  readonly #o: CloudDriftFactsOptions;
  #launched: { readonly atMs: number; readonly value: ReadonlyMap<string, LaunchedWith> } | undefined;

  constructor(options: CloudDriftFactsOptions) {
    this.#o = options;
  }

  resolved(nodeClass: EC2NodeClass): Promise<ResolvedNow | undefined> {
    const fromStatus = resolvedFromStatus(nodeClass);
    if (fromStatus === undefined || this.#o.placementGroups === undefined) return Promise.resolve(fromStatus);
    const group = this.#o.placementGroups.get(nodeClass.metadata.name ?? '');
    const selects = nodeClass.spec.placementGroupSelector !== undefined;
    const placementGroupId = selects ? group?.id : '';
    return Promise.resolve(placementGroupId === undefined ? fromStatus : { ...fromStatus, placementGroupId });
  }

  async launchedWith(providerID: string, options: { readonly fresh?: boolean } = {}): Promise<LaunchedWith | undefined> {
    const now = this.#o.clock.now();
    const age = this.#launched === undefined ? Number.POSITIVE_INFINITY : now - this.#launched.atMs;
    const known = this.#launched?.value.get(providerID);
    if (age < (known === undefined || options.fresh === true ? missRefreshMs : (this.#o.refreshMs ?? 300_000))) return known;
    const byProviderId = new Map((await this.#o.cloud.list()).map((i) => [i.providerID, launchFacts(i)]));
    this.#launched = { atMs: now, value: byProviderId };
    return byProviderId.get(providerID);
  }
}

function launchFacts(i: LaunchedInstance): LaunchedWith {
  return {
    ...(i.imageId === '' ? {} : { imageId: i.imageId }),
    ...(i.subnetId === undefined ? {} : { subnetId: i.subnetId }),
    ...(i.securityGroupIds === undefined ? {} : { securityGroupIds: i.securityGroupIds }),
    ...(i.capacityReservation === undefined ? {} : { capacityReservationId: i.capacityReservation.id }),
  };
}
