import type { EC2Client } from '@aws-sdk/client-ec2';
import type { Clock } from '../../domain/clock.js';
import type {
  CloudProvider,
  InstanceTypeInfo,
  LaunchedInstance,
  LaunchRequest,
  ListOptions,
} from '../../domain/cloud/cloud-provider.js';
import { isDomainError, NodeClaimNotFoundError } from '../../domain/cloud/errors.js';
import { UnavailableOfferings } from '../../domain/cloud/unavailable-offerings.js';
import { parseProviderId } from '../../domain/cloud/provider-id.js';
import type { RepairPolicy } from '../../domain/cloud/repair-policy.js';
import type { ReservationAvailability } from '../../domain/cloud/reservation-availability.js';
import { classifyEc2Error } from './sdk/ec2-errors.js';
import { launchFleet } from './instances/fleet-launch.js';
import { describeInstanceTypeCatalog } from './instance-types/instance-type-catalog.js';
import { isLive, listClusterInstances } from './instances/instances.js';
import { Ec2CallBatcher, instanceBatchWindow, type BatchRecord } from './sdk/ec2-call-batcher.js';
import type { BatcherName } from './sdk/batcher-metrics.js';
import { describeInstancesBatch, terminateInstancesBatch } from './instances/instance-batches.js';
import { LaunchTemplates } from './launch-template/launch-template.js';
import { awsRepairPolicies } from './repair-policies.js';
import { defaultRetryPolicy, type RetryPolicy } from './sdk/retry-throttled.js';
import type { ClusterBootstrap } from './user-data/user-data.js';

export interface AwsCloudProviderOptions {
  readonly ec2: EC2Client;
  /** Name, endpoint and CA the nodes join; `name` also scopes tags and List. */
  readonly cluster: ClusterBootstrap;
  readonly clock: Clock;
  /** Defaults to 5 attempts, 100 ms base, 5 s cap, full jitter, sleeping on `clock`. */
  readonly retry?: RetryPolicy;
  /** Share one cache with the planner so it skips offerings that just failed. */
  readonly unavailableOfferings?: UnavailableOfferings;
  /** Shared with the planner: launches into capacity reservations count against them here. */
  readonly reservations?: ReservationAvailability;
  /** Each DescribeInstances / TerminateInstances batch sent, for the batcher metrics. */
  readonly onBatch?: (batcher: BatcherName, record: BatchRecord) => void;
}

/** The CloudProvider port on EC2: CreateFleet for launches, tags for ownership. */
export class AwsCloudProvider implements CloudProvider {
  readonly name = 'aws';
  readonly unavailableOfferings: UnavailableOfferings;
  readonly #options: AwsCloudProviderOptions;
  readonly #retry: RetryPolicy;
  readonly #templates: LaunchTemplates;
  readonly #describe: Ec2CallBatcher<string, LaunchedInstance | undefined>;
  readonly #terminate: Ec2CallBatcher<string, 'terminating' | 'not-found'>;

  constructor(options: AwsCloudProviderOptions) {
    this.#options = options;
    this.#retry = options.retry ?? defaultRetryPolicy(options.clock);
    this.unavailableOfferings =
      options.unavailableOfferings ?? new UnavailableOfferings(options.clock);
    this.#templates = new LaunchTemplates(options.ec2, this.#retry, options.cluster.name);
    const report = (name: BatcherName) => (record: BatchRecord): void => options.onBatch?.(name, record);
    this.#describe = new Ec2CallBatcher({ window: instanceBatchWindow, clock: options.clock, execute: describeInstancesBatch(options.ec2, this.#retry), onBatch: report('describe_instances') });
    this.#terminate = new Ec2CallBatcher({ window: instanceBatchWindow, clock: options.clock, execute: terminateInstancesBatch(options.ec2, this.#retry), onBatch: report('terminate_instances') });
  }

  async create(request: LaunchRequest): Promise<LaunchedInstance> {
    const action = `launching nodeclaim ${request.nodeClaimName}`;
    try {
      return await launchFleet(
        {
          ec2: this.#options.ec2,
          retry: this.#retry,
          templates: this.#templates,
          cluster: this.#options.cluster,
          ...(this.#options.reservations === undefined ? {} : { reservations: this.#options.reservations }),
        },
        { request, unavailable: this.unavailableOfferings, now: this.#options.clock.now() },
      );
    } catch (e: unknown) {
      throw classifyEc2Error(e, action);
    }
  }

  async delete(providerID: string): Promise<void> {
    const instanceId = this.#instanceId(providerID);
    try {
      const instance = await this.#describe.add(instanceId);
      // Karpenter's contract: NotFound once the instance is gone, so the caller stops retrying.
      if (instance === undefined || !isLive(instance)) throw notFound(providerID);
      if (instance.state === 'shutting-down') return;
      const result = await this.#terminate.add(instanceId);
      if (result === 'not-found') throw notFound(providerID);
      // Its place in the reservation frees as it terminates; counted now, as Karpenter does, at worst a little early.
      if (instance.capacityReservation !== undefined) this.#options.reservations?.markTerminated(instance.capacityReservation.id);
    } catch (e: unknown) {
      throw classifyEc2Error(e, `terminating instance ${instanceId}`);
    }
  }

  async get(providerID: string): Promise<LaunchedInstance> {
    const instanceId = this.#instanceId(providerID);
    try {
      const instance = await this.#describe.add(instanceId);
      if (instance === undefined || !isLive(instance)) throw notFound(providerID);
      return instance;
    } catch (e: unknown) {
      throw classifyEc2Error(e, `getting instance ${instanceId}`);
    }
  }

  async list(options: ListOptions = {}): Promise<LaunchedInstance[]> {
    try {
      return await listClusterInstances(this.#options.ec2, this.#retry, this.#options.cluster.name, options);
    } catch (e: unknown) {
      throw classifyEc2Error(e, 'listing instances');
    }
  }

  async getInstanceTypes(): Promise<InstanceTypeInfo[]> {
    try {
      return await describeInstanceTypeCatalog(this.#options.ec2, this.#retry, this.#options.clock);
    } catch (e: unknown) {
      throw isDomainError(e) ? e : classifyEc2Error(e, 'describing instance types');
    }
  }

  repairPolicies(): readonly RepairPolicy[] {
    return awsRepairPolicies;
  }

  #instanceId(providerID: string): string {
    const parsed = parseProviderId(providerID);
    // Not an EC2 provider ID (e.g. a kwok node): there is no instance of ours behind it.
    if (parsed === undefined) throw notFound(providerID);
    return parsed.instanceId;
  }
}

function notFound(providerID: string): NodeClaimNotFoundError {
  return new NodeClaimNotFoundError(`instance ${providerID} not found`);
}
