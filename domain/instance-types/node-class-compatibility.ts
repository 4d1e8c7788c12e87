import { labels } from '../well-known-labels.js';
import { firstUnmetKey, requirementsFromExpressions, type NodeSelectorRequirementWithMinValues } from '../requirements/requirements.js';
import type { MachineFacts } from './allocatable.js';
import type { InstanceType } from './instance-type.js';

/** One image's `status.amis[].requirements`: the instance types it serves (its architecture and variant). */
export type ImageRequirements = readonly NodeSelectorRequirementWithMinValues[];

/** An interface the class lists, as far as its types must have room for it. */
export interface ListedInterface {
  readonly networkCardIndex: number;
  readonly deviceIndex: number;
  readonly interfaceType: string;
}

/** The class's placement group as its types must support it: its id (a label of the class's types) and strategy. */
export interface ClassPlacementGroup {
  readonly id: string;
  readonly strategy: string;
  /** Partitions of a partition group (1…count); 0 otherwise. */
  readonly partitionCount: number;
}

/** What of an EC2NodeClass decides which types it can launch at all (NodeClassCapacity's part of it). */
export interface ClassLaunchability {
  readonly images?: readonly ImageRequirements[];
  readonly nestedVirtualization?: true;
  readonly connectionTracking?: true;
  readonly networkInterfaces?: readonly ListedInterface[];
  readonly placementGroup?: ClassPlacementGroup;
  /** placementGroupSelector is set but no group is resolved for it (yet): nothing can launch into it. */
  readonly placementGroupPending?: true;
}

/** Whether one of the class's images serves the type, as Karpenter maps images to types (amifamily.MapToInstanceTypes). */
export function servedByImages(typeLabels: Readonly<Record<string, string>>, images: readonly ImageRequirements[] | undefined): boolean {
  return images === undefined || images.some((image) => firstUnmetKey(requirementsFromExpressions(image), (key) => typeLabels[key]) === undefined);
}

/**
 * Karpenter's network-interface check (compatibility.go `networkInterfaceCheck`), for a class that lists interfaces
 * (an empty list included): an ENA type, with a card at every listed card index and room on it for the listed device
 * index, and at least as many EFA interfaces as the class lists EFA-only ones.
 */
function holdsInterfaces(machine: MachineFacts, listed: readonly ListedInterface[]): boolean {
  if (machine.enaUnsupported === true) return false;
  const cards = machine.networkCards ?? [machine.enis];
  for (const n of listed) {
    const room = cards[n.networkCardIndex];
    if (room === undefined || room <= n.deviceIndex) return false;
  }
  const efaOnly = listed.filter((n) => n.interfaceType === 'efa-only').length;
  return efaOnly === 0 || efaOnly <= (machine.maxEfaInterfaces ?? 0);
}

/** Karpenter's placement-group check: the type supports the group's strategy (absent facts: all three). */
function joinsGroup(machine: MachineFacts, strategy: string): boolean {
  return machine.placementStrategies === undefined || machine.placementStrategies.includes(strategy);
}

/**
 * Whether the class's CPU options, connection tracking, interfaces and placement group allow the type, as
 * Karpenter's instance-type compatibility checks do (compatibility.go): nested virtualization needs a processor that
 * offers it, connection tracking a Nitro type, listed interfaces an ENA type with the cards and EFA devices they
 * name, a placement group a type that supports its strategy; a group not resolved yet allows nothing.
 */
export function compatibleWithClass(type: Pick<InstanceType, 'labels' | 'machine'>, settings: ClassLaunchability): boolean {
  const { machine } = type;
  if (settings.nestedVirtualization === true && machine.nestedVirtualization !== true) return false;
  if (settings.connectionTracking === true && type.labels[labels.instanceHypervisor] !== 'nitro') return false;
  if (settings.networkInterfaces !== undefined && !holdsInterfaces(machine, settings.networkInterfaces)) return false;
  if (settings.placementGroupPending === true) return false;
  return settings.placementGroup === undefined || joinsGroup(machine, settings.placementGroup.strategy);
}
