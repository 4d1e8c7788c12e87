import type { Filter } from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../../domain/cloud/node-class.js';

/** Which EC2 filter names a resource uses for the `id`, `name` and `cidr` selector fields. */
export interface FilterNames {
  readonly id: string;
  readonly name?: string;
  readonly cidr?: string;
}

/**
 * One selector term → EC2 filters (ANDed by EC2). A tag value of `*` means "the key exists",
 * which EC2 expresses as a `tag-key` filter rather than a wildcard value.
 */
export function termFilters(term: SelectorTerm, names: FilterNames): Filter[] {
  const filters: Filter[] = [];
  if (term.id !== undefined) filters.push({ Name: names.id, Values: [term.id] });
  if (term.name !== undefined && names.name !== undefined) {
    filters.push({ Name: names.name, Values: [term.name] });
  }
  if (term.cidr !== undefined && names.cidr !== undefined) filters.push({ Name: names.cidr, Values: [term.cidr] });
  for (const [key, value] of Object.entries(term.tags ?? {})) {
    filters.push(
      value === '*' ? { Name: 'tag-key', Values: [key] } : { Name: `tag:${key}`, Values: [value] },
    );
  }
  return filters;
}

/** Keeps the first of each id, so overlapping terms (ORed) yield each resource once. */
export function uniqueById<T>(items: readonly T[], idOf: (item: T) => string | undefined): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = idOf(item);
    if (id === undefined || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
