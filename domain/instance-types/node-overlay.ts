import type { QuantityValue } from '../core/pod.js';
import { compareStrings } from '../compare.js';
import { requirementsFromExpressions, firstUnmetKey, type NodeSelectorRequirementWithMinValues, type Requirements } from '../requirements/requirements.js';
import { parseResourceList, type ResourceList } from '../resource-list.js';
import { labels } from '../well-known-labels.js';
import type { InstanceType, Offering } from './instance-type.js';

/** The NodeOverlay fields the overlay reads (domain/api's NodeOverlay is assignable to it). */
export interface NodeOverlayLike {
  readonly metadata: { readonly name?: string };
  readonly spec: {
    readonly requirements?: readonly NodeSelectorRequirementWithMinValues[];
    readonly price?: string;
    readonly priceAdjustment?: string;
    readonly capacity?: Readonly<Record<string, QuantityValue>>;
    readonly weight?: number;
  };
}

/** What became of one overlay: applied, or left out whole because it conflicts with another of the same weight. */
export type OverlayVerdict = { readonly applied: true } | { readonly applied: false; readonly reason: 'Conflict'; readonly message: string };

export interface OverlaidInstanceTypes {
  /** The same types in the same order; a type no overlay touched is the same object. */
  readonly types: readonly InstanceType[];
  /** One verdict per overlay name. */
  readonly verdicts: ReadonlyMap<string, OverlayVerdict>;
}

/**
 * The price of an offering after an overlay's `price` (an absolute hourly price) or `priceAdjustment` (a signed
 * amount such as `-0.05`, or a signed percentage such as `-30%`); never below zero.
 */
export function adjustedPrice(price: number, change: string): number {
  if (!change.startsWith('+') && !change.startsWith('-')) return Number(change);
  const next = change.endsWith('%') ? price * (1 + Number(change.slice(0, -1)) / 100) : price + Number(change);
  return Math.max(0, next);
}

interface PriceEntry { change: string; lowestWeight: number; lowestBy: string }
interface CapacityEntry { readonly added: Record<string, number>; lowestWeight: number; lowestBy: string; lowestResources: ReadonlySet<string> }
interface TypeUpdates { readonly prices: Map<string, PriceEntry>; capacity?: CapacityEntry }

interface Compiled {
  readonly name: string;
  readonly weight: number;
  readonly requirements: Requirements;
  readonly change: string | undefined;
  readonly capacity: ResourceList | undefined;
}

function compile(overlay: NodeOverlayLike): Compiled {
  const { spec } = overlay;
  return {
    name: overlay.metadata.name ?? '',
    weight: spec.weight ?? 0,
    requirements: requirementsFromExpressions(spec.requirements ?? []),
    change: spec.price ?? spec.priceAdjustment,
    capacity: spec.capacity === undefined ? undefined : parseResourceList(spec.capacity),
  };
}

const offeringId = (o: Offering): string => `${o.capacityType}/${o.zone}`;

/** The offerings of a type the overlay selects (by the type's labels, the zone and the capacity type). */
function selectedOfferings(overlay: Compiled, type: InstanceType): readonly Offering[] {
  return type.offerings.filter((o) => firstUnmetKey(overlay.requirements, (key) => {
    if (key === labels.zone) return o.zone;
    if (key === labels.capacityType) return o.capacityType;
    return type.labels[key];
  }) === undefined);
}

/** Why this overlay may not apply to this type: another overlay of the same weight already set what it sets. */
function conflictOn(overlay: Compiled, type: InstanceType, offerings: readonly Offering[], updates: TypeUpdates | undefined): string | undefined {
  if (updates === undefined) return undefined;
  if (overlay.change !== undefined) {
    for (const o of offerings) {
      const entry = updates.prices.get(offeringId(o));
      if (entry?.lowestWeight === overlay.weight) return `both set the price of ${type.name} ${o.capacityType} in ${o.zone}; NodeOverlay ${entry.lowestBy} has the same weight (${String(overlay.weight)})`;
    }
  }
  const entry = updates.capacity;
  if (overlay.capacity === undefined || entry?.lowestWeight !== overlay.weight) return undefined;
  const shared = Object.keys(overlay.capacity).find((r) => entry.lowestResources.has(r));
  return shared === undefined ? undefined : `both set capacity ${shared} of ${type.name}; NodeOverlay ${entry.lowestBy} has the same weight (${String(overlay.weight)})`;
}

/** Records the overlay's changes: a higher weight came first and keeps what it set; this one fills the rest. */
function record(overlay: Compiled, offerings: readonly Offering[], updates: TypeUpdates): void {
  if (overlay.change !== undefined) {
    for (const o of offerings) {
      const entry = updates.prices.get(offeringId(o));
      if (entry === undefined) updates.prices.set(offeringId(o), { change: overlay.change, lowestWeight: overlay.weight, lowestBy: overlay.name });
      else Object.assign(entry, { lowestWeight: overlay.weight, lowestBy: overlay.name });
    }
  }
  if (overlay.capacity === undefined) return;
  const lowest = { lowestWeight: overlay.weight, lowestBy: overlay.name, lowestResources: new Set(Object.keys(overlay.capacity)) };
  const entry = updates.capacity;
  if (entry === undefined) updates.capacity = { added: { ...overlay.capacity }, ...lowest };
  else {
    for (const [resource, amount] of Object.entries(overlay.capacity)) entry.added[resource] ??= amount;
    Object.assign(entry, lowest);
  }
}

function overlaid(type: InstanceType, updates: TypeUpdates): InstanceType {
  const offerings = updates.prices.size === 0 ? type.offerings : type.offerings.map((o) => {
    const entry = updates.prices.get(offeringId(o));
    return entry === undefined ? o : { ...o, price: adjustedPrice(o.price, entry.change), priceOverlaid: true };
  });
  const added = updates.capacity?.added ?? {};
  // Extended resources only (admission refuses cpu, memory, ephemeral-storage and pods): no overhead applies.
  return { ...type, offerings, capacity: { ...type.capacity, ...added }, allocatable: { ...type.allocatable, ...added } };
}

/** Karpenter's order: weight descending, then name descending. */
function byPrecedence(a: Compiled, b: Compiled): number {
  return b.weight - a.weight || compareStrings(b.name, a.name);
}

/**
 * Applies NodeOverlays to instance types as Karpenter does: an overlay selects offerings by its requirements
 * (type labels, zone, capacity type) and sets their price or adjusts it, and adds extended resources to the
 * selected types. Higher weight wins; of equal weights the name later in the alphabet goes first. Two overlays
 * of the same weight that both price one offering, or both set one resource of a type, conflict: the later one
 * is left out whole (none of its changes apply) and its verdict says why. Pure: the input types are untouched.
 */
export function applyNodeOverlays(types: readonly InstanceType[], overlays: readonly NodeOverlayLike[]): OverlaidInstanceTypes {
  const verdicts = new Map<string, OverlayVerdict>();
  const updates = new Map<string, TypeUpdates>();
  for (const overlay of overlays.map(compile).sort(byPrecedence)) {
    const selected = types.map((type) => ({ type, offerings: selectedOfferings(overlay, type) })).filter((s) => s.offerings.length > 0);
    let conflict: string | undefined;
    for (const s of selected) conflict ??= conflictOn(overlay, s.type, s.offerings, updates.get(s.type.name));
    if (conflict !== undefined) {
      verdicts.set(overlay.name, { applied: false, reason: 'Conflict', message: `conflicts with another NodeOverlay: ${conflict}` });
      continue;
    }
    for (const s of selected) {
      let entry = updates.get(s.type.name);
      if (entry === undefined) updates.set(s.type.name, (entry = { prices: new Map() }));
      record(overlay, s.offerings, entry);
    }
    verdicts.set(overlay.name, { applied: true });
  }
  if (updates.size === 0) return { types, verdicts };
  return { types: types.map((type) => { const u = updates.get(type.name); return u === undefined ? type : overlaid(type, u); }), verdicts };
}

/**
 * One offering the catalog does not hold (a reserved offering, made per capacity reservation each planning pass)
 * with the overlays applied as applyNodeOverlays would have applied them had it been there: the price change of the
 * first overlay by precedence that selects it and was not left out for a conflict.
 */
export function overlaidOffering(type: InstanceType, offering: Offering, overlays: readonly NodeOverlayLike[], verdicts: ReadonlyMap<string, OverlayVerdict>): Offering {
  const only = { ...type, offerings: [offering] };
  const first = overlays.map(compile).sort(byPrecedence)
    .find((o) => o.change !== undefined && verdicts.get(o.name)?.applied !== false && selectedOfferings(o, only).length > 0);
  return first?.change === undefined ? offering : { ...offering, price: adjustedPrice(offering.price, first.change), priceOverlaid: true };
}
