import { createHash } from 'node:crypto';
import type {
  EC2Client,
  LaunchTemplatePlacementRequest,
  LaunchTemplateTagSpecificationRequest,
  RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import { CreateLaunchTemplateCommand, DescribeLaunchTemplatesCommand } from '../sdk/sdk.js';
import type { ResolvedAmi, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import type { CapacityType } from '../../../domain/cloud/offering.js';
import type { ReservationRef } from '../../../domain/cloud/capacity-reservation.js';
import { toLaunchTemplateBlockDevices } from './block-devices.js';
import { templateInterfaces } from './network-interfaces.js';
import { errorCode } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';
import { toEc2Tags } from '../sdk/tags.js';

export interface LaunchTemplateInput {
  readonly nodeClass: ResolvedNodeClass;
  readonly ami: ResolvedAmi;
  /** Base64, already merged for the AMI family. */
  readonly userData: string;
  /**
   * Karpenter's launch tags (the NodeClass's tags, cluster ownership, EKS cluster name, nodepool, nodeclass): on the
   * template itself and on what the fleet cannot tag, the network interfaces and, for spot, the spot request. The
   * NodeClaim's name is not among them, so NodeClaims share templates; instances get theirs from the fleet.
   */
  readonly tags: Readonly<Record<string, string>>;
  readonly capacityType?: CapacityType;
  /** A reserved launch: the template targets this reservation only. */
  readonly reservation?: ReservationRef;
  /** The cluster's DNS address is IPv6 (Karpenter's ClusterIPFamily): ipPrefixCount then asks for IPv6 prefixes. */
  readonly ipv6Cluster?: boolean;
  /**
   * EFA interfaces the launch attaches when the NodeClaim asks for `vpc.amazonaws.com/efa` and the class lists no
   * interfaces of its own: the type's EFA capacity (Karpenter groups its templates by it). 0 or absent: none.
   */
  readonly efaCount?: number;
  /**
   * The partition of the class's partition placement group the NodeClaim asked for (Karpenter's PartitionNumber);
   * absent: EC2 picks one.
   */
  readonly placementPartition?: number;
}

export function launchTemplateData(input: LaunchTemplateInput): RequestLaunchTemplateData {
  const { nodeClass, ami } = input;
  const md = nodeClass.metadataOptions;
  return {
    ImageId: ami.id,
    IamInstanceProfile: { Name: nodeClass.instanceProfile },
    NetworkInterfaces: templateInterfaces(nodeClass, input.efaCount ?? 0, input.ipv6Cluster === true),
    // EC2 refuses an empty list (a Custom class with no mappings keeps the image's own).
    ...(nodeClass.blockDeviceMappings.length === 0
      ? {}
      : { BlockDeviceMappings: toLaunchTemplateBlockDevices(nodeClass.blockDeviceMappings) }),
    MetadataOptions: {
      HttpEndpoint: md.httpEndpoint,
      HttpProtocolIpv6: md.httpProtocolIPv6,
      HttpPutResponseHopLimit: md.httpPutResponseHopLimit,
      HttpTokens: md.httpTokens,
      // An account default of "enabled" would expose instance tags in IMDS, which Karpenter's
      // (and our) tag keys with `/` cannot be; so the template says disabled, as Karpenter's does.
      InstanceMetadataTags: 'disabled',
    },
    UserData: input.userData,
    Monitoring: { Enabled: nodeClass.detailedMonitoring ?? false },
    ...reservationData(input.reservation),
    // Only when the class sets it, as Karpenter: an empty CpuOptions in every template would be a change of its own.
    ...(nodeClass.cpuOptions?.nestedVirtualization === undefined
      ? {}
      : { CpuOptions: { NestedVirtualization: nodeClass.cpuOptions.nestedVirtualization } }),
    // Enclaves and tenancy are spelled out as Karpenter does, so an account default cannot change what a node is.
    EnclaveOptions: { Enabled: false },
    Placement: placement(nodeClass, input.placementPartition),
    // EC2 refuses a tag specification with no tags.
    ...(Object.keys(input.tags).length === 0 ? {} : { TagSpecifications: resourceTagSpecifications(input) }),
  };
}

/**
 * Tenancy always, and the class's placement group by id (Karpenter names it by id, which stays the same when a group
 * is recreated under its name), with a partition only when the NodeClaim asked for one.
 */
function placement(nodeClass: ResolvedNodeClass, partition: number | undefined): LaunchTemplatePlacementRequest {
  const group = nodeClass.placementGroup;
  return {
    Tenancy: 'default',
    ...(group === undefined ? {} : { GroupId: group.id }),
    ...(group === undefined || partition === undefined || partition === 0 ? {} : { PartitionNumber: partition }),
  };
}

/**
 * As Karpenter with ReservedCapacity on: a reserved launch goes into its reservation and nowhere else (a capacity
 * block, or an interruptible reservation, also by its market type); any other launch states preference `none`, so
 * that it never consumes an open reservation the EC2NodeClass did not select, which other workloads may count on.
 */
function reservationData(reservation: ReservationRef | undefined): Pick<RequestLaunchTemplateData, 'CapacityReservationSpecification' | 'InstanceMarketOptions'> {
  if (reservation === undefined) return { CapacityReservationSpecification: { CapacityReservationPreference: 'none' } };
  const market = reservation.type === 'capacity-block' ? 'capacity-block' : reservation.interruptible ? 'interruptible-capacity-reservation' : undefined;
  return {
    CapacityReservationSpecification: {
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: reservation.id },
    },
    ...(market === undefined ? {} : { InstanceMarketOptions: { MarketType: market } }),
  };
}

function resourceTagSpecifications(input: LaunchTemplateInput): LaunchTemplateTagSpecificationRequest[] {
  const Tags = toEc2Tags(input.tags);
  return [
    { ResourceType: 'network-interface', Tags },
    ...(input.capacityType === 'spot' ? [{ ResourceType: 'spot-instances-request' as const, Tags }] : []),
  ];
}

/**
 * One template per distinct configuration, named by a hash of its data so equal options share a
 * template across restarts and replicas (Karpenter: `karpenter.k8s.aws/<hash>`).
 */
export function launchTemplateName(clusterName: string, data: RequestLaunchTemplateData): string {
  const hash = createHash('sha256').update(clusterName).update(JSON.stringify(data)).digest('hex');
  return `nodesmith.io/${hash.slice(0, 32)}`;
}

/** Creates templates on first use and remembers their ids; safe against a concurrent creator. */
export class LaunchTemplates {
  readonly #ec2: EC2Client;
  readonly #retry: RetryPolicy;
  readonly #clusterName: string;
  readonly #ids = new Map<string, Promise<string>>();

  constructor(ec2: EC2Client, retry: RetryPolicy, clusterName: string) {
    this.#ec2 = ec2;
    this.#retry = retry;
    this.#clusterName = clusterName;
  }

  /** Returns the template id for this input, creating the template if needed. */
  ensure(input: LaunchTemplateInput): Promise<string> {
    const data = launchTemplateData(input);
    const name = launchTemplateName(this.#clusterName, data);
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#create(name, data, input.tags);
      // A failed create must not poison the cache: the next launch tries again.
      id.catch(() => this.#ids.delete(name));
      this.#ids.set(name, id);
    }
    return id;
  }

  /** Forget a template EC2 no longer knows (deleted behind our back). */
  forget(): void {
    this.#ids.clear();
  }

  async #create(
    name: string,
    data: RequestLaunchTemplateData,
    tags: Readonly<Record<string, string>>,
  ): Promise<string> {
    try {
      const out = await retryThrottled(this.#retry, 'creating launch template', () =>
        this.#ec2.send(
          new CreateLaunchTemplateCommand({
            LaunchTemplateName: name,
            LaunchTemplateData: data,
            TagSpecifications: [{ ResourceType: 'launch-template', Tags: toEc2Tags(tags) }],
          }),
        ),
      );
      return out.LaunchTemplate?.LaunchTemplateId ?? (await this.#describe(name));
    } catch (e: unknown) {
      // Another replica (or an earlier run) created the same configuration first.
      if (errorCode(e) === 'InvalidLaunchTemplateName.AlreadyExistsException')
        return this.#describe(name);
      throw e;
    }
  }

  async #describe(name: string): Promise<string> {
    const out = await retryThrottled(this.#retry, 'describing launch template', () =>
      this.#ec2.send(new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: [name] })),
    );
    const id = out.LaunchTemplates?.[0]?.LaunchTemplateId;
    if (id === undefined) throw new Error(`launch template ${name} not found after create`);
    return id;
  }
}
