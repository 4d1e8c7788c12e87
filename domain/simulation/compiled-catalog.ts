import type { InstanceType } from '../instance-types/instance-type.js';
import { typeLevelKeys } from './nodepool-view.js';
import { TypeTable } from './type-table.js';

interface Compiled { readonly table: TypeTable; readonly typeKeys: ReadonlySet<string> }

const compiled = new WeakMap<readonly InstanceType[], WeakMap<ReadonlySet<string>, Compiled>>();
const noneUnavailable: ReadonlySet<string> = new Set();

/**
 * The type table of a catalog, compiled once per (catalog, unavailable-offerings set) object pair: a planner that
 * passes the same catalog to every pass does not rebuild it (it is immutable, so sharing it keeps simulate pure).
 */
export function compiledCatalog(types: readonly InstanceType[], unavailable: ReadonlySet<string> = noneUnavailable): Compiled {
  let byUnavailable = compiled.get(types);
  if (byUnavailable === undefined) compiled.set(types, (byUnavailable = new WeakMap()));
  let entry = byUnavailable.get(unavailable);
  if (entry === undefined) {
    const table = new TypeTable(types, unavailable);
    entry = { table, typeKeys: typeLevelKeys(table) };
    byUnavailable.set(unavailable, entry);
  }
  return entry;
}
