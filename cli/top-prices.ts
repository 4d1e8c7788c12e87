import type * as Catalog from '../domain/instance-types/catalog.js';
import type { PriceOf } from './top-model.js';

/**
 * $/h from the embedded catalog (on-demand list prices; spot at the catalog's estimate), as `plan` prices. Imported
 * only here and only by `top`, while the informers list the cluster, so the catalog costs no start-up of its own.
 */
let catalog: Promise<typeof Catalog> | undefined;

/** Starts loading the catalog module, so that it loads while the cluster is being listed. */
export function preloadCatalog(): void {
  catalog ??= import('../domain/instance-types/catalog.js');
}

export async function catalogPrices(region: string): Promise<PriceOf> {
  preloadCatalog();
  const { loadInstanceTypes } = await (catalog ?? import('../domain/instance-types/catalog.js'));
  const types = new Map(loadInstanceTypes({ region }).map((t) => [t.name, t.offerings]));
  return (instanceType, zone, capacityType) => {
    const offerings = types.get(instanceType) ?? [];
    return (offerings.find((o) => o.zone === zone && o.capacityType === capacityType) ?? offerings.find((o) => o.capacityType === capacityType))?.price;
  };
}
