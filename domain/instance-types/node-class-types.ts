import { resourceNames, type ResourceList } from '../resource-list.js';
import { labels } from '../well-known-labels.js';
import { allocatableFrom, type MachineFacts } from './allocatable.js';
import type { KubeletSpec } from '../cloud/node-class.js';
import { classKubelet, nodeKubelet } from './node-kubelet.js';
import { resolvedAmiFamily } from '../api/ami-families.js';
import { amiFamilyCapacity } from './ami-family-capacity.js';
import { ephemeralStorageBytes, type CapacityBlockDevice } from './ephemeral-storage.js';
import type { InstanceType } from './instance-type.js';
import { compatibleWithClass, servedByImages, type ClassLaunchability, type ClassPlacementGroup, type ImageRequirements, type ListedInterface } from './node-class-compatibility.js';

/**
 * The EC2NodeClass fields that change what its nodes hold (its AMI family, kubelet, disks and interfaces), which
 * types it can launch at all, and the placement group its nodes join. Of what ClassLaunchability holds:
 * - `images`: the requirements of each image the class resolved (status.amis). A type no image serves (a GPU type
 *   where the region publishes no GPU image) cannot launch: its offerings are unavailable, so no plan picks it.
 *   Undefined until the class is resolved.
 * - `nestedVirtualization`: cpuOptions.nestedVirtualization is `enabled`: only types whose processor offers it
 *   (EC2 refuses the others with UnsupportedOperation).
 * - `connectionTracking`: set: only Nitro types (only Nitro interfaces take connection tracking timeouts).
 * - `networkInterfaces`: the listed interfaces (an empty list included): they also set the EFA devices a node holds
 *   and the ENIs its pods keep.
 * - `placementGroup`: the group placementGroupSelector resolved to; its id labels the class's types and a partition
 *   group's partitions are a requirement of its NodePools (domain/simulation/class-requirements.ts).
 */
export interface NodeClassCapacity extends ClassLaunchability {
  readonly name: string;
  readonly amiFamily: string;
  /** spec.kubelet, whole: each type's NodeKubelet (node-kubelet.ts) is derived from it, for its sizing and its user data. */
  readonly kubelet?: KubeletSpec;
  /**
   * Why the class's AMI family cannot write its kubelet (a field its user data has no place for): the admission rule's
   * first problem, for a class admitted before the rule or with the webhook off. Its types launch nothing, and its
   * status says ValidationSucceeded=False with this message.
   */
  readonly kubeletRefusal?: string;
  readonly blockDeviceMappings?: readonly CapacityBlockDevice[];
  readonly instanceStorePolicy?: string;
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
    /** The whole kubelet block: it sizes the nodes and is what their user data writes. */
    readonly kubelet?: KubeletSpec;
    readonly blockDeviceMappings?: readonly CapacityBlockDevice[];
    readonly instanceStorePolicy?: string;
    readonly networkInterfaces?: readonly ListedInterface[];
    readonly cpuOptions?: { readonly nestedVirtualization?: string };
    readonly connectionTracking?: object;
    readonly placementGroupSelector?: object;
  };
  readonly status?: { readonly amis?: readonly { readonly requirements?: ImageRequirements }[] };
}

/** The object without its undefined fields, so that equal settings serialise alike (the cache key). */
function defined<T extends object>(value: { readonly [K in keyof T]-?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The fields of an EC2NodeClass that make its nodes (sizing and kubelet), and nothing else, so that classes that make
 * alike share their types. The
 * placement group is not in the object (Karpenter keeps it in memory, not in status): the caller gives the one
 * placementGroupSelector resolved to; a class whose selector has none resolved launches nothing.
 */
export function nodeClassCapacityOf(nodeClass: NodeClassLike, placementGroup?: ClassPlacementGroup): NodeClassCapacity {
  const spec = nodeClass.spec ?? {};
  const amiFamily = resolvedAmiFamily({ amiFamily: spec.amiFamily, amiSelectorTerms: spec.amiSelectorTerms ?? [] });
  return defined<NodeClassCapacity>({
    name: nodeClass.metadata.name ?? '',
    amiFamily,
    ...classKubelet(spec.kubelet, amiFamily),
    blockDeviceMappings: spec.blockDeviceMappings?.map((m) => defined<CapacityBlockDevice>({ deviceName: m.deviceName, rootVolume: m.rootVolume, ebs: m.ebs?.volumeSize === undefined ? undefined : { volumeSize: m.ebs.volumeSize } })),
    instanceStorePolicy: spec.instanceStorePolicy,
    networkInterfaces: spec.networkInterfaces?.map((n) => ({ networkCardIndex: n.networkCardIndex, deviceIndex: n.deviceIndex, interfaceType: n.interfaceType })),
    images: nodeClass.status?.amis?.map((a) => a.requirements ?? []),
    nestedVirtualization: spec.cpuOptions?.nestedVirtualization === 'enabled' ? true : undefined,
    connectionTracking: spec.connectionTracking === undefined ? undefined : true,
    ...classPlacement(spec.placementGroupSelector !== undefined, placementGroup),
  });
}

/** The group a selecting class resolved to, or pending while none is; nothing for a class without a selector. */
function classPlacement(selects: boolean, group: ClassPlacementGroup | undefined): { placementGroup: ClassPlacementGroup | undefined; placementGroupPending: true | undefined } {
  const resolved = selects && group !== undefined ? { id: group.id, strategy: group.strategy, partitionCount: group.partitionCount } : undefined;
  return { placementGroup: resolved, placementGroupPending: selects && group === undefined ? true : undefined };
}

/** A type's sizing under one class; `kubeletRefusal` when the class's kubelet expressions cannot be resolved on it. */
type SizedMachine = Pick<InstanceType, 'capacity' | 'overhead' | 'allocatable' | 'kubelet' | 'kubeletRefusal'>;

/** What a node of this machine holds under these settings, as Karpenter's NewInstanceType computes it, and its kubelet. */
export function sizeMachine(type: { readonly name: string; readonly machine: MachineFacts }, memory: number, extended: ResourceList, settings: NodeClassCapacity): SizedMachine {
  const { machine } = type;
  const family = amiFamilyCapacity(settings.amiFamily);
  const efaOnly = settings.networkInterfaces?.filter((n) => n.interfaceType === 'efa-only') ?? [];
  // Only EFA-only interfaces on the first card take an ENI from the VPC CNI.
  const efaOnlyEnis = efaOnly.filter((n) => n.networkCardIndex === 0).length;
  const storage = ephemeralStorageBytes(machine, family, settings);
  const kubelet = nodeKubelet({ instanceType: type.name, machine, memory, storage, family, kubelet: settings.kubelet ?? {}, efaOnlyEnis });
  // A class that lists its interfaces gets exactly the EFA devices it attaches.
  const listsInterfaces = settings.networkInterfaces !== undefined;
  const own: Record<string, number> = Object.fromEntries(Object.entries(extended).filter(([name]) => !listsInterfaces || name !== efaResource));
  if (listsInterfaces && efaOnly.length > 0) own[efaResource] = efaOnly.length;
  if (family.windows) own[privateIpv4Resource] = machine.ipv4PerEni - 1;
  const capacity = {
    [resourceNames.cpu]: machine.vcpu * 1000, [resourceNames.memory]: memory, [resourceNames.pods]: kubelet.pods,
    [resourceNames.ephemeralStorage]: storage, ...own,
  };
  const sized = { capacity, overhead: kubelet.overhead, allocatable: allocatableFrom(capacity, kubelet.overhead), kubelet: kubelet.config };
  return kubelet.refusal === undefined ? sized : { ...sized, kubeletRefusal: kubelet.refusal };
}

/**
 * Windows AMIs exist for amd64 only; Karpenter leaves kubernetes.io/os unset on the other types. A class's placement
 * group labels every type it launches (Karpenter's instance-type requirement `placement-group-id In [id]`).
 */
function classLabels(type: InstanceType, windows: boolean, group: ClassPlacementGroup | undefined): Readonly<Record<string, string>> {
  const grouped = group === undefined ? type.labels : { ...type.labels, [labels.placementGroupId]: group.id };
  if (!windows) return grouped;
  const rest = Object.fromEntries(Object.entries(grouped).filter(([key]) => key !== labels.os));
  return type.machine.arch === 'amd64' ? { ...rest, [labels.os]: 'windows' } : rest;
}

const coreResources = new Set<string>(Object.values(resourceNames));

function forClass(type: InstanceType, settings: NodeClassCapacity): InstanceType {
  const extended = Object.fromEntries(Object.entries(type.capacity).filter(([name]) => !coreResources.has(name) && name !== privateIpv4Resource));
  const sized = sizeMachine(type, type.capacity[resourceNames.memory] ?? 0, extended, settings);
  const typeLabels = classLabels(type, amiFamilyCapacity(settings.amiFamily).windows, settings.placementGroup);
  // A type the class cannot launch stays in the table, same order, with no available offering: no plan picks it.
  const launchable = settings.kubeletRefusal === undefined && sized.kubeletRefusal === undefined && servedByImages(typeLabels, settings.images) && compatibleWithClass(type, settings);
  const offerings = launchable ? type.offerings : type.offerings.map((o) => ({ ...o, available: false }));
  // Field by field, so that a refusal of the type as given (sized for another class) does not outlive its class.
  const { capacity, overhead, allocatable, kubelet, kubeletRefusal } = sized;
  return { name: type.name, labels: typeLabels, capacity, overhead, allocatable, kubelet, ...(kubeletRefusal === undefined ? {} : { kubeletRefusal }), offerings, machine: type.machine };
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
