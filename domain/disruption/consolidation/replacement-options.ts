import type { InstanceType } from '../../instance-types/instance-type.js';
import { offeringKey } from '../../instance-types/instance-type.js';
import { requirementAllows, type Requirement } from '../../requirements/requirement.js';
import { requirementsFromExpressions, type Requirements } from '../../requirements/requirements.js';
import type { PlannedNodeClaim, SimulationNodePool } from '../../simulation/simulation-input.js';
import { capacityTypes, labels as wellKnown } from '../../well-known-labels.js';
import { dollarsPerHour } from './min-savings.js';
import type { PriceCap } from './same-type-cap.js';
import { compareStrings } from '../../compare.js';

/** Karpenter's `MinInstanceTypesForSpotToSpotConsolidation`: fewer cheaper spot types than this is not flexible enough. */
export const spotToSpotMinTypes = 15;

export interface ReplacementQuestion {
  readonly claim: PlannedNodeClaim;
  readonly pool: SimulationNodePool;
  readonly typesByName: ReadonlyMap<string, InstanceType>;
  readonly unavailable?: ReadonlySet<string>;
  readonly candidatesPrice: number;
  /** The least the move must save (USD per hour; 0 = any saving) and its words for reasons. */
  readonly required: number;
  readonly requiredWords: string;
  /** Every candidate runs on spot. */
  readonly allSpot: boolean;
  readonly spotToSpot: boolean;
  /** A single-node move: spot-to-spot then needs 15 cheaper types and launches with the 15 cheapest. */
  readonly single: boolean;
  /** Multi-node: every option must also cost less than this (`sameTypeCap`). */
  readonly priceCap?: PriceCap;
}

export type ReplacementAnswer =
  | { readonly ok: true; readonly claim: PlannedNodeClaim; readonly dearest: number }
  | { readonly ok: false; readonly reason: string };

interface Priced { readonly type: InstanceType; readonly price: number }

const launchOrder = [capacityTypes.spot, capacityTypes.onDemand, capacityTypes.reserved];

/** The capacity types the launch may use; both spot and on-demand → spot only (Karpenter pins to spot). */
function allowedCapacityTypes(claim: PlannedNodeClaim, requirements: Requirements): string[] {
  if (claim.capacityType !== undefined) return [claim.capacityType];
  const requirement = requirements.get(wellKnown.capacityType);
  const allowed = launchOrder.filter((ct) => (requirement === undefined ? ct === capacityTypes.onDemand : requirementAllows(requirement, ct)));
  return allowed.includes(capacityTypes.spot) && allowed.includes(capacityTypes.onDemand) ? [capacityTypes.spot] : allowed;
}

/**
 * Karpenter's `WorstLaunchPrice`: the dearest offering the launch could land on within the allowed capacity types
 * and zones, so that the move saves money whichever offering EC2 picks. Undefined when none is available.
 */
function worstLaunchPrice(type: InstanceType, q: ReplacementQuestion, allowed: readonly string[], zone: Requirement | undefined): number | undefined {
  let worst: number | undefined;
  for (const o of type.offerings) {
    if (!o.available || !allowed.includes(o.capacityType)) continue;
    if (q.claim.zone !== undefined ? o.zone !== q.claim.zone : zone !== undefined && !requirementAllows(zone, o.zone)) continue;
    if (q.unavailable?.has(offeringKey(o.capacityType, type.name, o.zone)) === true) continue;
    worst = Math.max(worst ?? 0, o.price);
  }
  return worst;
}

function labelOf(type: InstanceType, key: string): string | undefined {
  return key === wellKnown.instanceType ? type.name : type.labels[key];
}

/** The first minValues requirement the options no longer meet, in words. */
function minValuesShortfall(options: readonly Priced[], requirements: Requirements): string | undefined {
  for (const r of requirements.values()) {
    if (r.minValues === undefined) continue;
    const values = new Set(options.map((o) => labelOf(o.type, r.key)).filter((v) => v !== undefined));
    if (values.size < r.minValues) return `${String(values.size)} values of ${r.key}, below its minValues ${String(r.minValues)}`;
  }
  return undefined;
}

/** The cheapest options that keep minValues, at least `count` of them. */
function cheapest(options: readonly Priced[], count: number, requirements: Requirements): Priced[] {
  let n = Math.min(count, options.length);
  while (n < options.length && minValuesShortfall(options.slice(0, n), requirements) !== undefined) n++;
  return options.slice(0, n);
}

function tooDear(best: Priced | undefined, q: ReplacementQuestion, capacity: string): string {
  if (best === undefined) return `no ${capacity} offering of the ${String(q.claim.instanceTypes.length)} replacement types is available`;
  const what = `best replacement ${best.type.name} at ${dollarsPerHour(best.price)}`;
  if (best.price >= q.candidatesPrice) return `${what} is not cheaper than ${dollarsPerHour(q.candidatesPrice)}`;
  const saving = q.candidatesPrice - best.price;
  const share = ((saving / q.candidatesPrice) * 100).toFixed(1);
  return `${what} saves ${dollarsPerHour(saving)} (${share}%) of ${dollarsPerHour(q.candidatesPrice)}, below the ${q.requiredWords}`;
}

function spotToSpotBlock(q: ReplacementQuestion, kept: number): string | undefined {
  if (!q.spotToSpot) return 'replacing spot with spot needs the SpotToSpotConsolidation feature gate (off); spot nodes are only deleted';
  if (q.single && kept < spotToSpotMinTypes) return `spot-to-spot replacement needs at least ${String(spotToSpotMinTypes)} cheaper spot types, found ${String(kept)}`;
  return undefined;
}

/**
 * Karpenter's replacement rules (`computeConsolidation`, `filterByPrice`): pin to spot when both spot and on-demand
 * are allowed, drop every type whose worst launch price does not save the required amount, refuse when minValues
 * no longer holds, and gate spot-to-spot behind its flag and (single-node) 15 cheaper types, launching with the 15
 * cheapest. Options come back cheapest first.
 */
export function replacementOptions(q: ReplacementQuestion): ReplacementAnswer {
  const requirements = requirementsFromExpressions(q.pool.spec.template.spec.requirements);
  const allowed = allowedCapacityTypes(q.claim, requirements);
  const priced = pricedOptions(q, allowed, requirements.get(wellKnown.zone));
  const saving = savingOptions(q, priced, allowed);
  if (typeof saving === 'string') return { ok: false, reason: saving };
  let kept = saving;
  const short = minValuesShortfall(kept, requirements);
  if (short !== undefined) return { ok: false, reason: `the ${String(kept.length)} replacement types cheaper than ${dollarsPerHour(q.candidatesPrice)} have ${short}` };
  if (q.allSpot && allowed.length === 1 && allowed[0] === capacityTypes.spot) {
    const block = spotToSpotBlock(q, kept.length);
    if (block !== undefined) return { ok: false, reason: block };
    if (q.single) kept = cheapest(kept, spotToSpotMinTypes, requirements);
  }
  return { ok: true, claim: withOptions(q.claim, kept, allowed), dearest: kept[kept.length - 1]?.price ?? q.claim.pricePerHour };
}

/** The options that save the required amount and stay under the price cap, or why there are none. */
function savingOptions(q: ReplacementQuestion, priced: readonly Priced[], allowed: readonly string[]): Priced[] | string {
  const saving = priced.filter((o) => o.price < q.candidatesPrice && q.candidatesPrice - o.price >= q.required);
  if (saving.length === 0) return tooDear(priced[0], q, allowed.join(' or '));
  const cap = q.priceCap;
  if (cap === undefined) return saving;
  const kept = saving.filter((o) => o.price < cap.price);
  return kept.length === 0 ? cap.why : kept;
}

/** The claim's options priced at their worst launch price, cheapest first; types with no allowed offering dropped. */
function pricedOptions(q: ReplacementQuestion, allowed: readonly string[], zone: Requirement | undefined): Priced[] {
  const priced: Priced[] = [];
  for (const name of q.claim.instanceTypes) {
    const type = q.typesByName.get(name);
    const price = type === undefined ? undefined : worstLaunchPrice(type, q, allowed, zone);
    if (type !== undefined && price !== undefined) priced.push({ type, price });
  }
  return priced.sort((a, b) => a.price - b.price || compareStrings(a.type.name, b.type.name));
}

function withOptions(claim: PlannedNodeClaim, kept: readonly Priced[], allowed: readonly string[]): PlannedNodeClaim {
  const capacityType = allowed.length === 1 ? allowed[0] : undefined;
  return {
    ...claim,
    instanceTypes: kept.map((o) => o.type.name),
    pricePerHour: kept[0]?.price ?? claim.pricePerHour,
    ...(capacityType === undefined ? {} : { capacityType, labels: { ...claim.labels, [wellKnown.capacityType]: capacityType } }),
  };
}
