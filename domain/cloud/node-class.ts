import type { Architecture } from './offering.js';

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
}

export type AmiFamily = 'AL2023' | 'AL2' | 'Bottlerocket' | 'Custom';

/** `id` alone, or `tags` (a value of `*` matches any value), or `name` (security groups only). */
export interface SelectorTerm {
  readonly id?: string;
  readonly name?: string;
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

/** AL2023's root volume when the NodeClass names none: 20Gi gp3, encrypted. */
export const defaultBlockDeviceMappings: readonly BlockDeviceMapping[] = [
  {
    deviceName: '/dev/xvda',
    rootVolume: true,
    ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true },
  },
];

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
}

/** A NodeClass with its selectors turned into concrete ids: everything a launch needs. */
export interface ResolvedNodeClass {
  readonly name: string;
  readonly amiFamily: AmiFamily;
  readonly subnets: readonly ResolvedSubnet[];
  readonly securityGroups: readonly ResolvedSecurityGroup[];
  /** At most one per architecture: the newest image matching the selectors. */
  readonly amis: readonly ResolvedAmi[];
  readonly instanceProfile: string;
  readonly blockDeviceMappings: readonly BlockDeviceMapping[];
  readonly metadataOptions: MetadataOptions;
  readonly userData?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly associatePublicIPAddress?: boolean;
  readonly detailedMonitoring?: boolean;
}
