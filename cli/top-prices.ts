import type * as Catalog from '../domain/instance-types/catalog.js';
import type { InstanceType, Offering } from '../domain/instance-types/instance-type.js';
import { applyNodeOverlays } from '../domain/instance-types/node-overlay.js';
import type { NodeOverlays } from '../provisioner/pricing/node-overlays.js';
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

function offeringsByName(types: readonly InstanceType[], overlays: NodeOverlays | undefined): ReadonlyMap<string, readonly Offering[]> {
  const overlaid = overlays === undefined ? types : applyNodeOverlays(types, overlays.valid()).types;
  return new Map(overlaid.map((t) => [t.name, t.offerings]));
}

/** With the NodeOverlay gate on, `overlays` (kept current by their informer) price the catalog, as the controller's. */
export async function catalogPrices(region: string, overlays?: NodeOverlays): Promise<PriceOf> {
  preloadCatalog();
  const { loadInstanceTypes } = await (catalog ?? import('../domain/instance-types/catalog.js'));
  const base = loadInstanceTypes({ region });
  let types = offeringsByName(base, overlays);
  overlays?.onChange(() => { types = offeringsByName(base, overlays); });
  return (instanceType, zone, capacityType) => {
    const offerings = types.get(instanceType) ?? [];
    return (offerings.find((o) => o.zone === zone && o.capacityType === capacityType) ?? offerings.find((o) => o.capacityType === capacityType))?.price;
  };
}
