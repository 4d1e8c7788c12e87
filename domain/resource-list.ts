import type { QuantityValue } from './core/pod.js';
import { resourceAmount } from './quantity.js';

/**
 * Resource amounts on the simulation's integer scale: `cpu` in millicores, everything else in whole units
 * (bytes for memory and ephemeral-storage). Missing keys mean zero.
 */
export type ResourceList = Readonly<Record<string, number>>;

/**
 * The same amounts as Kubernetes writes them (`{ cpu: '3920m', memory: '15Gi', pods: '58' }`), as they travel in
 * objects and annotations; `parseResourceList` turns them into a ResourceList, `toQuantities` back.
 */
export type Quantities = Readonly<Record<string, QuantityValue>>;

/** Well-known resource names. */
export const resourceNames = { cpu: 'cpu', memory: 'memory', pods: 'pods', ephemeralStorage: 'ephemeral-storage' } as const;

/** Parses a manifest resource map ("500m", "1Gi") into a {@link ResourceList}. Throws QuantityError. */
export function parseResourceList(values: Quantities | undefined): ResourceList {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(values ?? {})) out[name] = resourceAmount(name, value);
  return out;
}

/** a + b, key by key. */
export function addResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: Record<string, number> = { ...a };
  for (const [name, value] of Object.entries(b)) out[name] = (out[name] ?? 0) + value;
  return out;
}

/** a − b, key by key (may go negative: callers compare with {@link fitsWithin}). */
export function subtractResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: Record<string, number> = { ...a };
  for (const [name, value] of Object.entries(b)) out[name] = (out[name] ?? 0) - value;
  return out;
}

/** The key-by-key maximum. */
export function maxResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: Record<string, number> = { ...a };
  for (const [name, value] of Object.entries(b)) out[name] = Math.max(out[name] ?? 0, value);
  return out;
}

/** Every positive request is at most what is available (a missing available key is zero). */
export function fitsWithin(requests: ResourceList, available: ResourceList): boolean {
  return firstShortfall(requests, available) === undefined;
}

/** The first resource whose request exceeds what is available, or undefined when everything fits. */
export function firstShortfall(requests: ResourceList, available: ResourceList): string | undefined {
  for (const [name, value] of Object.entries(requests)) {
    if (value > 0 && value > (available[name] ?? 0)) return name;
  }
  return undefined;
}

/** Back to Kubernetes quantities: millicores for `cpu`, whole units otherwise; negatives become 0. */
export function toQuantities(resources: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(resources)) {
    const amount = String(Math.max(0, Math.floor(value)));
    out[name] = name === resourceNames.cpu ? `${amount}m` : amount;
  }
  return out;
}
