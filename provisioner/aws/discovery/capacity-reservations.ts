import type {
  CapacityReservation as Ec2CapacityReservation,
  DescribeCapacityReservationsCommandInput,
  EC2Client,
  Filter,
} from '@aws-sdk/client-ec2';
import { paginateDescribeCapacityReservations } from '../sdk/sdk.js';
import type {
  CapacityReservation,
  CapacityReservationSelector,
  CapacityReservationSource,
} from '../../../domain/cloud/capacity-reservation.js';
import type { Clock } from '../../../domain/clock.js';
import { errorCode } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { uniqueById } from '../sdk/selector-filters.js';

/**
 * The DescribeCapacityReservations requests for selector terms, as Karpenter sends them: an `id` term asks for that
 * reservation alone (MaxResults is refused with ids); any other term becomes filters on owner, tags (`*`: the key
 * exists) and instance match criteria, 1000 per page. Every request asks only for active reservations.
 */
export function describeRequests(terms: readonly CapacityReservationSelector[]): DescribeCapacityReservationsCommandInput[] {
  const active: Filter = { Name: 'state', Values: ['active'] };
  const requests: DescribeCapacityReservationsCommandInput[] = [];
  for (const term of terms) {
    if (term.id !== undefined) requests.push({ Filters: [active], CapacityReservationIds: [term.id] });
    if (Object.keys(term.tags ?? {}).length === 0 && term.instanceMatchCriteria === undefined) continue;
    const filters: Filter[] = [active];
    if (term.ownerID !== undefined) filters.push({ Name: 'owner-id', Values: [term.ownerID] });
    for (const [key, value] of Object.entries(term.tags ?? {})) {
      filters.push(value === '*' ? { Name: 'tag-key', Values: [key] } : { Name: `tag:${key}`, Values: [value] });
    }
    if (term.instanceMatchCriteria !== undefined) filters.push({ Name: 'instance-match-criteria', Values: [term.instanceMatchCriteria] });
    requests.push({ Filters: filters, MaxResults: 1000 });
  }
  return requests;
}

/**
 * One EC2 reservation in our terms; undefined for one we cannot launch into safely (a match criteria or a
 * reservation type EC2 added after this code, as Karpenter skips them).
 */
export function fromEc2(r: Ec2CapacityReservation): CapacityReservation | undefined {
  const criteria = r.InstanceMatchCriteria;
  const type = knownType(r.ReservationType);
  if ((criteria !== 'open' && criteria !== 'targeted') || type === undefined) return undefined;
  if (r.CapacityReservationId === undefined || r.AvailabilityZone === undefined || r.InstanceType === undefined) return undefined;
  return {
    id: r.CapacityReservationId,
    type,
    interruptible: r.Interruptible ?? false,
    availabilityZone: r.AvailabilityZone,
    instanceType: r.InstanceType,
    instanceMatchCriteria: criteria,
    ownerID: r.OwnerId ?? '',
    ...(r.EndDate === undefined ? {} : { endTime: r.EndDate.getTime() }),
    availableInstanceCount: r.AvailableInstanceCount ?? 0,
  };
}

const reservationNotFound: ReadonlySet<string> = new Set(['InvalidCapacityReservationId.NotFound', 'InvalidCapacityReservationId.Malformed']);

function knownType(type: string | undefined): CapacityReservation['type'] | undefined {
  if (type === undefined || type === 'default') return 'default';
  return type === 'capacity-block' ? type : undefined;
}

/** The reservations an EC2NodeClass selects, through the real EC2 API. */
export class Ec2CapacityReservations implements CapacityReservationSource {
  readonly #ec2: EC2Client;
  readonly #retry: RetryPolicy;
  readonly #clock: Clock;

  constructor(ec2: EC2Client, retry: RetryPolicy, clock: Clock) {
    this.#ec2 = ec2;
    this.#retry = retry;
    this.#clock = clock;
  }

  async list(terms: readonly CapacityReservationSelector[]): Promise<CapacityReservation[]> {
    const found: Ec2CapacityReservation[] = [];
    for (const input of describeRequests(terms)) found.push(...(await this.#describe(input)));
    const now = this.#clock.now();
    return uniqueById(found, (r) => r.CapacityReservationId)
      .filter((r) => r.EndDate === undefined || r.EndDate.getTime() > now)
      .flatMap((r) => fromEc2(r) ?? []);
  }

  async #describe(input: DescribeCapacityReservationsCommandInput): Promise<Ec2CapacityReservation[]> {
    const out: Ec2CapacityReservation[] = [];
    try {
      await retryThrottled(this.#retry, 'describing capacity reservations', async () => {
        out.length = 0;
        for await (const page of paginateDescribeCapacityReservations({ client: this.#ec2 }, input)) {
          out.push(...(page.CapacityReservations ?? []));
        }
      });
    } catch (e: unknown) {
      // A reservation asked for by id that no longer exists (cancelled, or another account's) selects nothing.
      if (input.CapacityReservationIds !== undefined && reservationNotFound.has(errorCode(e) ?? '')) return [];
      throw e;
    }
    return out;
  }
}
