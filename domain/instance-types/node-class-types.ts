import { resourceNames, type ResourceList } from '../resource-list.js';
import { labels } from '../well-known-labels.js';
import { allocatableFrom, eniLimitedPods, evictionThreshold, kubeReserved, maxPods, systemReserved, type KubeletCapacity, type MachineFacts } from './allocatable.js';
import { resolvedAmiFamily } from '../api/ami-families.js';
import { amiFamilyCapacity } from './ami-family-capacity.js';
import { ephemeralStorageBytes, type CapacityBlockDevice } from './ephemeral-storage.js';
import type { InstanceType, Overhead } from './instance-type.js';
import { firstUnmetKey, requirementsFromExpressions, type NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';

/** One image's `status.amis[].requirements`: the instance types it serves (its architecture and variant). */
export type ImageRequirements = readonly NodeSelectorRequirementWithMinValues[];

/**
 * The EC2NodeClass fields that change what its nodes hold (its AMI family, kubelet, disks and interfaces) and which
 * types it can launch at all (its images, CPU options and connection tracking).
 */
export interface NodeClassCapacity {
  readonly name: string;
  readonly amiFamily: string;
  readonly kubelet?: KubeletCapacity;
  readonly blockDeviceMappings?: readonly CapacityBlockDevice[];
  readonly instanceStorePolicy?: string;
  readonly networkInterfaces?: readonly { readonly networkCardIndex: number; readonly interfaceType: string }[];
  /**
   * The requirements of each image the class resolved (status.amis). A type no image serves (a GPU type where the
   * region publishes no GPU image) cannot launch: its offerings are unavailable, so no plan picks it. Undefined until
   * the class is resolved.
   */
  readonly images?: readonly ImageRequirements[];
  /**
   * cpuOptions.nestedVirtualization is `enabled`: only types whose processor offers nested virtualization can launch,
   * as Karpenter's instance-type compatibility check keeps them (EC2 refuses the others with UnsupportedOperation).
   */
  readonly nestedVirtualization?: true;
  /**
   * connectionTracking is set: only Nitro types can launch, as Karpenter's compatibility check keeps them (only
   * Nitro interfaces take connection tracking timeouts).
   */
  readonly connectionTracking?: true;
}

/** A class with no settings of its own: AL2023 with Karpenter's defaults (what the embedded catalog is sized for). */
export const defaultNodeClassCapacity: NodeClassCapacity = { name: '', amiFamily: 'AL2023' };

const efaResource = 'vpc.amazonaws.com/efa';
const privateIpv4Resource = 'vpc.amazonaws.com/PrivateIPv4Address';

/** The EC2NodeClass fields nodeClassCapacityOf reads (domain/api's EC2NodeClass is assignable to it). */
export interface NodeClassLike {
  readonly metadata: { readonly name?: string };
  readonly spec?: {
    readonly amiFamily?: string;
    readonly amiSelectorTerms?: readonly { readonly alias?: string }[];
    /** The whole kubelet block (AL2023 passes any field through); only the sizing fields are read. */
    readonly kubelet?: KubeletCapacity & Readonly<Record<string, unknown>>;
    readonly blockDeviceMappings?: readonly CapacityBlockDevice[];
    readonly instanceStorePolicy?: string;
    readonly networkInterfaces?: readonly { readonly networkCardIndex: number; readonly interfaceType: string }[];
    readonly cpuOptions?: { readonly nestedVirtualization?: string };
    readonly connectionTracking?: object;
  };
  readonly status?: { readonly amis?: readonly { readonly requirements?: ImageRequirements }[] };
}

/** The object without its undefined fields, so that equal settings serialise alike (the cache key). */
function defined<T extends object>(value: { readonly [K in keyof T]-?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The sizing fields of an EC2NodeClass, and nothing else, so that classes that size alike share their types. */
export function nodeClassCapacityOf(nodeClass: NodeClassLike): NodeClassCapacity {
  const spec = nodeClass.spec ?? {};
  const k = spec.kubelet;
  return defined<NodeClassCapacity>({
    name: nodeClass.metadata.name ?? '',
    amiFamily: resolvedAmiFamily({ amiFamily: spec.amiFamily, amiSelectorTerms: spec.amiSelectorTerms ?? [] }),
    kubelet: k === undefined ? undefined : defined<KubeletCapacity>({ maxPods: k.maxPods, podsPerCore: k.podsPerCore, systemReserved: k.systemReserved, kubeReserved: k.kubeReserved, evictionHard: k.evictionHard }),
    blockDeviceMappings: spec.blockDeviceMappings?.map((m) => defined<CapacityBlockDevice>({ deviceName: m.deviceName, rootVolume: m.rootVolume, ebs: m.ebs?.volumeSize === undefined ? undefined : { volumeSize: m.ebs.volumeSize } })),
    instanceStorePolicy: spec.instanceStorePolicy,
    networkInterfaces: spec.networkInterfaces?.map((n) => ({ networkCardIndex: n.networkCardIndex, interfaceType: n.interfaceType })),
    images: nodeClass.status?.amis?.map((a) => a.requirements ?? []),
    nestedVirtualization: spec.cpuOptions?.nestedVirtualization === 'enabled' ? true : undefined,
    connectionTracking: spec.connectionTracking === undefined ? undefined : true,
  });
}

/** What a node of this machine holds under these settings, as Karpenter's NewInstanceType computes it. */
export function sizeMachine(machine: MachineFacts, memory: number, extended: ResourceList, settings: NodeClassCapacity): { capacity: ResourceList; overhead: Overhead; allocatable: ResourceList } {
  const family = amiFamilyCapacity(settings.amiFamily);
  const kubelet = settings.kubelet ?? {};
  const efaOnly = settings.networkInterfaces?.filter((n) => n.interfaceType === 'efa-only') ?? [];
  // Only EFA-only interfaces on the first card take an ENI from the VPC CNI.
  const efaOnlyEnis = efaOnly.filter((n) => n.networkCardIndex === 0).length;
  const pods = maxPods(machine, family, kubelet, efaOnlyEnis);
  const storage = ephemeralStorageBytes(machine, family, settings);
  // A class that lists its interfaces gets exactly the EFA devices it attaches.
  const listsInterfaces = settings.networkInterfaces !== undefined;
  const own: Record<string, number> = Object.fromEntries(Object.entries(extended).filter(([name]) => !listsInterfaces || name !== efaResource));
  if (listsInterfaces && efaOnly.length > 0) own[efaResource] = efaOnly.length;
  if (family.windows) own[privateIpv4Resource] = machine.ipv4PerEni - 1;
  const capacity = {
    [resourceNames.cpu]: machine.vcpu * 1000, [resourceNames.memory]: memory, [resourceNames.pods]: pods,
    [resourceNames.ephemeralStorage]: storage, ...own,
  };
  // AL2, AL2023 and Custom reserve memory for the ENI-limited pod count (no reserved ENIs) whatever maxPods says.
  const reservedFor = family.eniLimitedMemoryOverhead ? eniLimitedPods(machine, 0, efaOnlyEnis) : pods;
  const overhead: Overhead = {
    kubeReserved: kubeReserved(machine.vcpu, reservedFor, kubelet.kubeReserved),
    systemReserved: systemReserved(kubelet.systemReserved),
    evictionThreshold: evictionThreshold(memory, storage, kubelet.evictionHard),
  };
  return { capacity, overhead, allocatable: allocatableFrom(capacity, overhead) };
}

/** Windows AMIs exist for amd64 only; Karpenter leaves kubernetes.io/os unset on the other types. */
function classLabels(type: InstanceType, windows: boolean): Readonly<Record<string, string>> {
  if (!windows) return type.labels;
  const rest = Object.fromEntries(Object.entries(type.labels).filter(([key]) => key !== labels.os));
  return type.machine.arch === 'amd64' ? { ...rest, [labels.os]: 'windows' } : rest;
}

const coreResources = new Set<string>(Object.values(resourceNames));

/** Whether one of the class's images serves the type, as Karpenter maps images to types (amifamily.MapToInstanceTypes). */
export function servedByImages(labels: Readonly<Record<string, string>>, images: readonly ImageRequirements[] | undefined): boolean {
  return images === undefined || images.some((image) => firstUnmetKey(requirementsFromExpressions(image), (key) => labels[key]) === undefined);
}

/**
 * Whether the class's CPU options and connection tracking allow the type, as Karpenter's instance-type compatibility
 * checks do (compatibility.go): nested virtualization needs a processor that offers it, connection tracking a Nitro type.
 */
export function compatibleWithClass(type: Pick<InstanceType, 'labels' | 'machine'>, settings: NodeClassCapacity): boolean {
  if (settings.nestedVirtualization === true && type.machine.nestedVirtualization !== true) return false;
  return settings.connectionTracking !== true || type.labels[labels.instanceHypervisor] === 'nitro';
}

function forClass(type: InstanceType, settings: NodeClassCapacity): InstanceType {
  const extended = Object.fromEntries(Object.entries(type.capacity).filter(([name]) => !coreResources.has(name) && name !== privateIpv4Resource));
  const sized = sizeMachine(type.machine, type.capacity[resourceNames.memory] ?? 0, extended, settings);
  const typeLabels = classLabels(type, amiFamilyCapacity(settings.amiFamily).windows);
  // A type the class cannot launch stays in the table, same order, with no available offering: no plan picks it.
  const launchable = servedByImages(typeLabels, settings.images) && compatibleWithClass(type, settings);
  const offerings = launchable ? type.offerings : type.offerings.map((o) => ({ ...o, available: false }));
  return { ...type, ...sized, labels: typeLabels, offerings };
}

const byCatalog = new WeakMap<readonly InstanceType[], Map<string, readonly InstanceType[]>>();

/**
 * The catalog as one EC2NodeClass's nodes would be: same types, offerings and prices, in the same order, with
 * capacity, overhead and allocatable from the class's AMI family, kubelet, block devices and interfaces. Cached per
 * catalog and per sizing settings (two classes that size alike share one array), so the planner, the extender's
 * plans and consolidation's hundreds of simulations compile each class's table once.
 */
export function instanceTypesForNodeClass(catalog: readonly InstanceType[], settings: NodeClassCapacity): readonly InstanceType[] {
  let bySettings = byCatalog.get(catalog);
  if (bySettings === undefined) byCatalog.set(catalog, (bySettings = new Map<string, readonly InstanceType[]>()));
  const key = JSON.stringify({ ...settings, name: '' });
  let types = bySettings.get(key);
  if (types === undefined) {
    if (bySettings.size >= 64) bySettings.clear();
    types = catalog.map((type) => forClass(type, settings));
    bySettings.set(key, types);
  }
  return types;
}

/** One type of the catalog as this class's node would be, for callers that hold a single launched type. */
export function instanceTypeForNodeClass(type: InstanceType, settings: NodeClassCapacity): InstanceType {
  return forClass(type, settings);
}
