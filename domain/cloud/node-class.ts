import type { Architecture } from './offering.js';
import type { PlacementGroupSelector, ResolvedPlacementGroup } from './placement-group.js';

/**
 * The EC2NodeClass fields the cloud adapter needs, as plain data. It mirrors Karpenter's
 * `karpenter.k8s.aws/v1` spec field names, but the API types live elsewhere: integration maps
 * between them, so this port does not move when the CRD schema does.
 */
export interface NodeClassSpec {
  readonly name: string;
  readonly subnetSelectorTerms: readonly SelectorTerm[];
  readonly securityGroupSelectorTerms: readonly SelectorTerm[];
  readonly amiSelectorTerms: readonly AmiSelectorTerm[];
  readonly amiFamily?: AmiFamily;
  /** spec.instanceProfile, or the profile created for spec.role (status.instanceProfile). */
  readonly instanceProfile: string;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[];
  readonly metadataOptions?: Partial<MetadataOptions>;
  readonly userData?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly associatePublicIPAddress?: boolean;
  readonly detailedMonitoring?: boolean;
  readonly instanceStorePolicy?: 'RAID0';
  readonly ipPrefixCount?: number;
  readonly context?: string;
  readonly cpuOptions?: CpuOptions;
  readonly connectionTracking?: ConnectionTracking;
  readonly networkInterfaces?: readonly NetworkInterfaceSpec[];
  readonly placementGroupSelector?: PlacementGroupSelector;
}

/**
 * spec.networkInterfaces[]: an interface the launch template attaches, on a network card at a device index. An
 * `efa-only` interface is an Elastic Fabric Adapter with no IP address (RDMA only); `interface` is an ordinary ENA one.
 */
export interface NetworkInterfaceSpec {
  readonly networkCardIndex: number;
  readonly deviceIndex: number;
  readonly interfaceType: 'interface' | 'efa-only';
}

/** spec.cpuOptions: EC2's launch template CpuOptions, of which Karpenter exposes nested virtualization only. */
export interface CpuOptions {
  readonly nestedVirtualization?: 'enabled' | 'disabled';
}

/** spec.connectionTracking: idle timeouts, in seconds, of the interfaces the launch template creates. */
export interface ConnectionTracking {
  readonly tcpEstablishedTimeout?: number;
  readonly udpStreamTimeout?: number;
  readonly udpTimeout?: number;
}

export type AmiFamily =
  'AL2023' | 'AL2' | 'Bottlerocket' | 'Custom' | 'Windows2019' | 'Windows2022' | 'Windows2025';

/**
 * Which accelerator drivers an EKS-optimized image carries (Karpenter's AMI variants): standard
 * images serve types without GPUs or Neuron devices, nvidia images GPU types, neuron images
 * Inferentia and Trainium types.
 */
export type AmiVariant = 'standard' | 'nvidia' | 'neuron';

/**
 * spec.kubelet: Karpenter's managed subset, typed, plus any other KubeletConfiguration field (AL2023's nodeadm
 * passes those through; what the other families write is domain/api/kubelet-families.ts). The cloud port's
 * NodeClassSpec and ResolvedNodeClass do not carry it: a launch gets each type's kubelet from the simulation's
 * sizing of it (InstanceType.kubelet, LaunchOffering.kubelet), derived once in domain/instance-types/node-kubelet.ts.
 */
export interface KubeletSettings extends KubeletFields {
  readonly maxPods?: number;
}

/**
 * spec.kubelet as the class gives it: maxPods may be an expression, and a kubeReserved or systemReserved value one
 * (aws provider #9326), evaluated per instance type into the KubeletSettings its user data writes.
 */
export interface KubeletSpec extends KubeletFields {
  readonly maxPods?: number | string;
}

/** The fields spec.kubelet and a node's resolved kubelet share. */
interface KubeletFields {
  readonly clusterDNS?: readonly string[];
  readonly podsPerCore?: number;
  readonly systemReserved?: Readonly<Record<string, string>>;
  readonly kubeReserved?: Readonly<Record<string, string>>;
  readonly evictionHard?: Readonly<Record<string, string>>;
  readonly evictionSoft?: Readonly<Record<string, string>>;
  /** Go durations (`1m30s`), as the API server accepted them. */
  readonly evictionSoftGracePeriod?: Readonly<Record<string, string>>;
  readonly evictionMaxPodGracePeriod?: number;
  readonly imageGCHighThresholdPercent?: number;
  readonly imageGCLowThresholdPercent?: number;
  readonly cpuCFSQuota?: boolean;
  readonly [field: string]: unknown;
}

/**
 * `id` alone, or `tags` (a value of `*` matches any value), or `name` (security groups only), or `cidr` (subnets
 * only: the subnet's IPv4 CIDR block, exactly).
 */
export interface SelectorTerm {
  readonly id?: string;
  readonly name?: string;
  readonly cidr?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface AmiSelectorTerm extends SelectorTerm {
  /** `family@version`, e.g. `al2023@latest`; resolved through the public SSM parameters. */
  readonly alias?: string;
  readonly owner?: string;
  readonly ssmParameter?: string;
}

export interface BlockDeviceMapping {
  readonly deviceName: string;
  readonly rootVolume?: boolean;
  readonly ebs: {
    readonly volumeSize?: string;
    readonly volumeType?: 'standard' | 'io1' | 'io2' | 'gp2' | 'sc1' | 'st1' | 'gp3';
    readonly encrypted?: boolean;
    readonly deleteOnTermination?: boolean;
    readonly iops?: number;
    readonly throughput?: number;
    readonly kmsKeyID?: string;
    readonly snapshotID?: string;
    /** MiB/s at which EBS fills a volume from its snapshot (100–300); only with snapshotID. */
    readonly volumeInitializationRate?: number;
  };
}

export interface MetadataOptions {
  readonly httpEndpoint: 'enabled' | 'disabled';
  readonly httpProtocolIPv6: 'enabled' | 'disabled';
  readonly httpPutResponseHopLimit: number;
  readonly httpTokens: 'required' | 'optional';
}

/** Karpenter's defaults: IMDSv2 only, and a hop limit of 1 so pods cannot reach the node's role. */
export const defaultMetadataOptions: MetadataOptions = {
  httpEndpoint: 'enabled',
  httpProtocolIPv6: 'disabled',
  httpPutResponseHopLimit: 1,
  httpTokens: 'required',
};

/**
 * AL2023's root volume when the NodeClass names none: 20Gi gp3, encrypted. DeleteOnTermination is left unset, as
 * Karpenter leaves it: EC2 deletes volumes created at launch with the instance unless told otherwise.
 */
export const defaultBlockDeviceMappings: readonly BlockDeviceMapping[] = [
  {
    deviceName: '/dev/xvda',
    rootVolume: true,
    ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true },
  },
];

const defaultEbs = { volumeType: 'gp3', encrypted: true } as const;

/**
 * The volumes each family's image expects when the NodeClass names none (facts §3): Bottlerocket
 * keeps its OS on a 6Gi /dev/xvda (no smaller than its images' root snapshot, as in Karpenter v1.15)
 * and containers on /dev/xvdb, Windows needs 50Gi on /dev/sda1, and a Custom image keeps whatever
 * its own mappings say.
 */
export function familyBlockDeviceMappings(family: AmiFamily): readonly BlockDeviceMapping[] {
  switch (family) {
    case 'AL2023':
    case 'AL2':
      return defaultBlockDeviceMappings;
    case 'Bottlerocket':
      return [
        { deviceName: '/dev/xvda', ebs: { ...defaultEbs, volumeSize: '6Gi' } },
        { deviceName: '/dev/xvdb', ebs: { ...defaultEbs, volumeSize: '20Gi' } },
      ];
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return [{ deviceName: '/dev/sda1', ebs: { ...defaultEbs, volumeSize: '50Gi' } }];
    case 'Custom':
      return [];
  }
}

export interface ResolvedSubnet {
  readonly id: string;
  readonly zone: string;
  readonly zoneId?: string;
  readonly availableIpAddressCount: number;
}

export interface ResolvedSecurityGroup {
  readonly id: string;
  readonly name: string;
}

export interface ResolvedAmi {
  readonly id: string;
  readonly name: string;
  readonly architecture: Architecture;
  readonly creationDate?: string;
  /**
   * The instance types this image serves, when it came from an alias parameter that says so.
   * Absent for images selected by id, name, tags or ssmParameter, and for Windows aliases: those
   * serve every type of their architecture.
   */
  readonly variant?: AmiVariant;
}

/** A NodeClass with its selectors turned into concrete ids: everything a launch needs. */
export interface ResolvedNodeClass {
  readonly name: string;
  readonly amiFamily: AmiFamily;
  readonly subnets: readonly ResolvedSubnet[];
  readonly securityGroups: readonly ResolvedSecurityGroup[];
  /** The newest image per architecture and variant, newest first: a launch takes the first that fits. */
  readonly amis: readonly ResolvedAmi[];
  readonly instanceProfile: string;
  readonly blockDeviceMappings: readonly BlockDeviceMapping[];
  readonly metadataOptions: MetadataOptions;
  readonly userData?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly associatePublicIPAddress?: boolean;
  readonly detailedMonitoring?: boolean;
  readonly instanceStorePolicy?: 'RAID0';
  /** IPv4 (IPv6 in an IPv6 cluster) prefixes on the primary interface: prefix delegation. */
  readonly ipPrefixCount?: number;
  /** CreateFleet's reserved `Context`. */
  readonly context?: string;
  readonly cpuOptions?: CpuOptions;
  readonly connectionTracking?: ConnectionTracking;
  /**
   * The interfaces the class lists; the launch template attaches exactly these (an empty list: the default primary
   * interface, as Karpenter). Undefined when the class lists none.
   */
  readonly networkInterfaces?: readonly NetworkInterfaceSpec[];
  /** The placement group placementGroupSelector selects; every launch goes into it. */
  readonly placementGroup?: ResolvedPlacementGroup;
  /** The selectors the images came from: Bottlerocket's user data depends on the version they name. */
  readonly amiSelectorTerms?: readonly AmiSelectorTerm[];
}
