import type { InstanceType } from '../instance-types/instance-type.js';
import { typeLevelKeys } from './nodepool-view.js';
import { TypeTable } from './type-table.js';

interface Compiled { readonly table: TypeTable; readonly typeKeys: ReadonlySet<string> }

const compiled = new WeakMap<readonly InstanceType[], Map<string, Compiled>>();
const noneUnavailable: ReadonlySet<string> = new Set();

/**
 * The type table of a catalog, compiled once per catalog object and unavailable-offerings contents: the planner
 * passes the same catalog to every pass, and consolidation runs the simulation hundreds of times per pass over it;
 * building the table and its label keys was most of the cost of a small simulation. The ICE set is keyed by
 * content (callers build a fresh set per call, and it holds a handful of entries); a catalog keeps its last few
 * tables. Both are immutable, so sharing them keeps simulate pure.
 */
export function compiledCatalog(types: readonly InstanceType[], unavailable: ReadonlySet<string> = noneUnavailable): Compiled {
  let byUnavailable = compiled.get(types);
  if (byUnavailable === undefined) compiled.set(types, (byUnavailable = new Map<string, Compiled>()));
  const key = [...unavailable].sort().join('\n');
  let entry = byUnavailable.get(key);
  if (entry === undefined) {
    if (byUnavailable.size >= 8) byUnavailable.clear();
    const table = new TypeTable(types, unavailable);
    entry = { table, typeKeys: typeLevelKeys(table) };
    byUnavailable.set(key, entry);
  }
  return entry;
}
