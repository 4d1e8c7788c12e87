import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { listInstances } from '../e2e/e2e-support.js';
import type { ProductStack } from '../e2e/product-stack.js';

export interface OnDemandFleet {
  readonly instances: number;
  /** "type×count, …" in the order moto lists them. */
  readonly types: string;
  /** $/hour at the embedded catalog's us-east-1 on-demand prices. */
  readonly price: number;
}

/** The cluster's live (running or pending) instances in moto, priced on demand from the embedded catalog. */
export async function onDemandFleet(product: ProductStack): Promise<OnDemandFleet> {
  const instances = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
  const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((t) => [t.name, t]));
  const price = instances.reduce((sum, i) => sum + (catalog.get(i.type)?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0), 0);
  const types = new Map<string, number>();
  for (const i of instances) types.set(i.type, (types.get(i.type) ?? 0) + 1);
  return { instances: instances.length, price, types: [...types].map(([t, n]) => `${t}×${String(n)}`).join(', ') };
}
