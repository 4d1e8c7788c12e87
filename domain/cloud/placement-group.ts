/** spec.placementGroupSelector: one EC2 placement group, by name or by id (`pg-…`), never both. */
export interface PlacementGroupSelector {
  readonly name?: string;
  readonly id?: string;
}

/** EC2's placement strategies: one AZ close together, racks apart in partitions, or every instance apart. */
export type PlacementStrategy = 'cluster' | 'partition' | 'spread';

/**
 * A placement group as DescribePlacementGroups describes it (Karpenter's placementgroup.PlacementGroup): every
 * instance of the EC2NodeClass launches into it, by id.
 */
export interface ResolvedPlacementGroup {
  readonly id: string;
  readonly name: string;
  readonly strategy: PlacementStrategy;
  /** Partitions of a `partition` group (EC2 numbers them 1…count); 0 for the other strategies. */
  readonly partitionCount: number;
  /** `rack` or `host` for a spread group. */
  readonly spreadLevel?: string;
}

/**
 * The partitions of a group that Karpenter's offerings and instance-type requirements name: `1`…`count` for a
 * partition group with partitions, none otherwise.
 */
export function partitionsOf(group: Pick<ResolvedPlacementGroup, 'strategy' | 'partitionCount'>): string[] {
  if (group.strategy !== 'partition' || group.partitionCount <= 0) return [];
  return Array.from({ length: group.partitionCount }, (_, i) => String(i + 1));
}
