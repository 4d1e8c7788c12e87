import type { Registry } from 'prom-client';
import type { Clock } from '../../domain/clock.js';
import type { CloudProvider, NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import type { InstanceHealthSource } from '../../domain/cloud/instance-health.js';
import type { InstanceProfileProvider } from '../../domain/cloud/instance-profiles.js';
import type { InstanceTypeSource, OnDemandPriceSource } from '../../domain/cloud/instance-type-source.js';
import type { InterruptionQueue } from '../../domain/cloud/interruption-queue.js';
import type { SpotPriceSource } from '../../domain/cloud/spot-prices.js';
import type { UnavailableOfferings } from '../../domain/cloud/unavailable-offerings.js';
import type { CapacityReservationSource } from '../../domain/cloud/capacity-reservation.js';
import { ReservationAvailability } from '../../domain/cloud/reservation-availability.js';
import { Ec2CapacityReservations } from './discovery/capacity-reservations.js';
import { eksAliasParameters, publicServicePrefix } from './images/ami-alias.js';
import { createAwsClients, type AwsClientOptions } from './sdk/aws-clients.js';
import { AwsCloudProvider } from './aws-cloud-provider.js';
import { Ec2InstanceTypes } from './instance-types/ec2-instance-types.js';
import { PricingApiOnDemandPrices } from './pricing/on-demand-prices.js';
import { batcherMetrics } from './sdk/batcher-metrics.js';
import { IamInstanceProfiles } from './instance-profiles/iam-instance-profiles.js';
import { Ec2InstanceHealth } from './instances/instance-status.js';
import { withCloudProviderMetrics } from './metrics.js';
import { RecentResolutions } from './recent-resolutions.js';
import { AwsNodeClassResolver } from './nodeclass-resolver.js';
import { defaultRetryPolicy, type RetryPolicy } from './sdk/retry-throttled.js';
import { Ec2SpotPrices } from './pricing/spot-prices.js';
import { SqsInterruptionQueue } from './interruption-queue/sqs-queue.js';
import type { ClusterBootstrap } from './user-data/user-data.js';

export interface AwsProviderOptions extends AwsClientOptions {
  readonly cluster: ClusterBootstrap;
  /** Picks the EKS AMI alias parameters, e.g. "1.33". */
  readonly kubernetesVersion: string;
  readonly clock: Clock;
  /** When set, the CloudProvider is wrapped with the duration and error metrics. */
  readonly registry?: Registry;
  readonly retry?: Partial<Omit<RetryPolicy, 'clock'>>;
  /** Stands for `/aws/service` in the alias parameters, for emulators that reserve `/aws/…` (moto). */
  readonly amiParameterPrefix?: string;
  /** Karpenter's INTERRUPTION_QUEUE: an SQS queue name or URL; unset turns interruption handling off. */
  readonly interruptionQueue?: string;
}

/** Everything the provisioner needs from AWS, built from one options object. */
export interface AwsProvider {
  readonly cloudProvider: CloudProvider;
  /** The same provider, its metrics labelled with this `controller` (Karpenter's label). */
  cloudProviderFor(controller: string): CloudProvider;
  /** Asks EC2 each time: the EC2NodeClass status controller's resolver. */
  readonly nodeClassResolver: NodeClassResolver;
  /** What launches resolve a class through: the status controller's answer from the last minute, or one shared call. */
  readonly launchNodeClassResolver: NodeClassResolver;
  /** The ICE cache Create fills; the planner reads it to skip offerings that just failed. */
  readonly unavailableOfferings: UnavailableOfferings;
  /** DescribeInstanceStatus, for the instance-health poller. */
  readonly instanceHealth: InstanceHealthSource;
  /** DescribeSpotPriceHistory, for the periodic spot price refresh. */
  readonly spotPrices: SpotPriceSource;
  /** DescribeInstanceTypes and DescribeInstanceTypeOfferings, for the instance-type refresh. */
  readonly instanceTypes: InstanceTypeSource;
  /** The Pricing API's GetProducts, for the on-demand price refresh. */
  readonly onDemandPrices: OnDemandPriceSource;
  /** IAM instance profiles for EC2NodeClasses with `role`. */
  readonly instanceProfiles: InstanceProfileProvider;
  /** DescribeCapacityReservations, for the EC2NodeClasses' capacityReservationSelectorTerms. */
  readonly capacityReservations: CapacityReservationSource;
  /** How many more instances each discovered reservation takes; launches count against it. */
  readonly reservationAvailability: ReservationAvailability;
  /** Set when an interruption queue was configured. */
  readonly interruptionQueue?: InterruptionQueue;
  /** Releases the SDK clients' sockets. */
  close(): void;
}

export function createAwsProvider(options: AwsProviderOptions): AwsProvider {
  const clients = createAwsClients(options);
  const retry: RetryPolicy = { ...defaultRetryPolicy(options.clock), ...options.retry };
  const reservationAvailability = new ReservationAvailability(options.clock);
  const provider = new AwsCloudProvider({
    ec2: clients.ec2,
    cluster: options.cluster,
    clock: options.clock,
    retry,
    reservations: reservationAvailability,
    ...(options.registry === undefined ? {} : { onBatch: batcherMetrics(options.registry) }),
  });
  const resolutions = new RecentResolutions(new AwsNodeClassResolver({
    ec2: clients.ec2,
    ssm: clients.ssm,
    retry,
    aliasParameters: eksAliasParameters(
      options.kubernetesVersion,
      options.amiParameterPrefix ?? publicServicePrefix,
    ),
  }), options.clock);
  const registry = options.registry;
  const cloudProviderFor = (controller: string): CloudProvider =>
    registry === undefined ? provider : withCloudProviderMetrics(provider, { registry, clock: options.clock, controller });
  return {
    cloudProvider: cloudProviderFor(''),
    cloudProviderFor,
    nodeClassResolver: resolutions.fresh,
    launchNodeClassResolver: resolutions.recent,
    unavailableOfferings: provider.unavailableOfferings,
    instanceProfiles: new IamInstanceProfiles(clients.iam, retry),
    spotPrices: new Ec2SpotPrices(clients.ec2, retry),
    instanceTypes: new Ec2InstanceTypes(clients.ec2, retry),
    onDemandPrices: new PricingApiOnDemandPrices(clients.pricing, options.region, retry),
    instanceHealth: new Ec2InstanceHealth(clients.ec2, retry),
    capacityReservations: new Ec2CapacityReservations(clients.ec2, retry, options.clock),
    reservationAvailability,
    ...(options.interruptionQueue === undefined || options.interruptionQueue === ''
      ? {}
      : { interruptionQueue: new SqsInterruptionQueue(clients.sqs, options.interruptionQueue) }),
    close: () => {
      clients.destroy();
    },
  };
}
