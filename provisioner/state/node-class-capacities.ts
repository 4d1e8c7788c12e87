import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { instanceTypeForNodeClass, instanceTypesForNodeClass, nodeClassCapacityOf, type NodeClassCapacity } from '../../domain/instance-types/node-class-types.js';
import type { ClusterState } from './cluster-state.js';
import type { ResolvedPlacementGroup } from '../../domain/cloud/placement-group.js';

type NodeClassObject = ClusterState['nodeClasses'] extends Map<string, infer C> ? C : never;

// The model replaces a class's object when the class changes, so one derivation per object is one per generation;
// its placement group is resolved apart from the object, so a derivation also holds for one group only.
const derived = new WeakMap<NodeClassObject, { readonly group: ResolvedPlacementGroup | undefined; readonly settings: NodeClassCapacity }>();

function capacityOf(state: ClusterState, nodeClass: NodeClassObject): NodeClassCapacity {
  const group = state.placementGroups.get(nodeClass.metadata.name ?? '');
  const known = derived.get(nodeClass);
  if (known?.group === group && known !== undefined) return known.settings;
  const settings = nodeClassCapacityOf(nodeClass, group);
  derived.set(nodeClass, { group, settings });
  return settings;
}

/**
 * The sizing settings of every EC2NodeClass in the model: what the simulation needs to plan each NodePool with its
 * class's instance types (SimulationInput.nodeClasses), for the planner and consolidation alike.
 */
export function nodeClassCapacities(state: ClusterState): NodeClassCapacity[] {
  return [...state.nodeClasses.values()].map((c) => capacityOf(state, c));
}

/** A launched type as its EC2NodeClass sizes it (the NodeClaim's and the Node's capacity); as given when the class is gone. */
export function typeForNodeClass(state: ClusterState, nodeClassName: string, type: InstanceType): InstanceType {
  const nodeClass = state.nodeClasses.get(nodeClassName);
  return nodeClass === undefined ? type : instanceTypeForNodeClass(type, capacityOf(state, nodeClass));
}

/** The catalog (same order) as an EC2NodeClass sizes it; as given when the class is gone. */
export function typesForNodeClass(state: ClusterState, nodeClassName: string, catalog: readonly InstanceType[]): readonly InstanceType[] {
  const nodeClass = state.nodeClasses.get(nodeClassName);
  return nodeClass === undefined ? catalog : instanceTypesForNodeClass(catalog, capacityOf(state, nodeClass));
}
