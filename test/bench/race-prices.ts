// The one price table of the side-by-side race: what EC2 answers both controllers (the Pricing API, the spot price
// history, which override a fleet launches: FaultProxy.setEc2Prices), what each fleet is priced with afterwards, and
// what the bound may buy. Neither controller's own idea of a price enters a figure.
import type { Instance } from '@aws-sdk/client-ec2';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { fnv1a32 } from '../../domain/fnv1a.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { ec2PriceOf, type Ec2Prices, type FleetChoice } from '../stack/ec2-allocation.js';
import { karpenterModuleDir } from '../stack/karpenter.js';

/** A stable share in [0.25, 0.55) for each type and zone (FNV-1a): spot prices that differ by pool, as EC2's do. */
export function spotShare(type: string, zone: string): number {
  return 0.25 + 0.3 * (fnv1a32(`${type}/${zone}`) / 2 ** 32);
}

/**
 * The region's on-demand prices from nodesmith's embedded catalog (the EC2 price list), and spot prices made from
 * them by pool: moto has neither (no Pricing API; one placeholder spot price for every type).
 */
export function racePrices(region: string): Ec2Prices {
  const onDemand = new Map<string, number>();
  for (const t of loadInstanceTypes({ region })) {
    const price = t.offerings.find((o) => o.capacityType === 'on-demand')?.price;
    if (price !== undefined) onDemand.set(t.name, price);
  }
  return { region, onDemand, spot: (type, zone) => { const od = onDemand.get(type); return od === undefined ? undefined : od * spotShare(type, zone); } };
}

/** The pool both controllers get: c, m and r of generation 3 and later, in the capacity types given. */
export const poolCategories = ['c', 'm', 'r'];
export const poolMinGeneration = 2;

/** The pool's types with their offerings in `capacityTypes`, priced from `prices`: what the bound may buy. */
export function poolTable(prices: Ec2Prices, capacityTypes: readonly string[] = ['on-demand']): InstanceType[] {
  return loadInstanceTypes({ region: prices.region })
    .filter((t) => poolCategories.includes(t.labels['karpenter.k8s.aws/instance-category'] ?? '') && Number(t.labels['karpenter.k8s.aws/instance-generation'] ?? 0) > poolMinGeneration)
    .map((t) => ({
      ...t,
      offerings: t.offerings.filter((o) => capacityTypes.includes(o.capacityType)).map((o) => ({
        ...o, price: ec2PriceOf(prices, o.capacityType, t.name, o.zone) ?? Number.NaN,
      })),
    }));
}

export interface Fleet { readonly instances: number; readonly price: number; readonly types: string; readonly spot: number }

/** $/hour of the instances from the table: spot ones at their zone's spot price, the others on demand. */
export function priceFleet(instances: readonly Instance[], prices: Ec2Prices): Fleet {
  const types = new Map<string, number>();
  let price = 0;
  let spot = 0;
  for (const i of instances) {
    const type = i.InstanceType ?? '?';
    types.set(type, (types.get(type) ?? 0) + 1);
    const isSpot = i.InstanceLifecycle === 'spot';
    if (isSpot) spot++;
    price += ec2PriceOf(prices, isSpot ? 'spot' : 'on-demand', type, i.Placement?.AvailabilityZone ?? '') ?? Number.NaN;
  }
  return { instances: instances.length, price, spot, types: [...types].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t}×${String(n)}`).join(', ') };
}

const dollars = (p: number | undefined): string => (p === undefined ? '$?' : `$${p.toFixed(4)}`);

/**
 * One line per CreateFleet: the override launched, the cheapest one offered, and the first in request order (what
 * moto alone would have launched), then how many fleets a first-override rule would have priced differently.
 */
export function fleetLines(controller: string, choices: readonly FleetChoice[]): string {
  const lines = choices.map((c, i) => {
    const cheapest = [...c.offered].sort((a, b) => (a.price ?? Infinity) - (b.price ?? Infinity))[0];
    const first = c.offered[0];
    return `    ${controller} fleet ${String(i + 1)} (${c.capacityType}, ${c.strategy}, ${String(c.offered.length)} offered): launched ${c.launched.join('+') || 'nothing'} ${dollars(c.chosen?.price)}; cheapest offered ${cheapest?.type ?? '?'} ${cheapest?.zone ?? ''} ${dollars(cheapest?.price)}; first offered ${first?.type ?? '?'} ${dollars(first?.price)}`;
  });
  const notFirst = choices.filter((c) => c.offered[0] !== undefined && c.chosen !== undefined && c.offered[0].price !== c.chosen.price).length;
  return [`  ${controller}: ${String(choices.length)} CreateFleet calls; in ${String(notFirst)} of them the first override offered was not the one EC2 launches`, ...lines].join('\n');
}

/**
 * How Karpenter's built-in on-demand prices (what it decides with in an isolated VPC: its region's table, else
 * us-east-1's) differ from the race's table, over the pool's types. Read from the module Karpenter is built from.
 */
export async function builtInPriceDifference(prices: Ec2Prices, pool: readonly string[]): Promise<string> {
  let source: string;
  try {
    source = await readFile(join(await karpenterModuleDir(), 'pkg/providers/pricing/zz_generated.pricing_aws.go'), 'utf8');
  } catch (error) {
    return `Karpenter's built-in prices could not be read (${error instanceof Error ? error.message : String(error)})`;
  }
  const block = (region: string): string | undefined => new RegExp(`\\n\\t"${region}": \\{([\\s\\S]*?)\\n\\t\\}`).exec(source)?.[1];
  const region = block(prices.region) === undefined ? 'us-east-1' : prices.region;
  const builtIn = new Map([...(block(region) ?? '').matchAll(/"([a-z0-9.-]+)": ([0-9.]+)/g)].map((m) => [m[1] ?? '', Number(m[2])]));
  const ratios = pool.flatMap((type) => { const a = builtIn.get(type); const b = prices.onDemand.get(type); return a === undefined || b === undefined ? [] : [a / b]; });
  const differing = ratios.filter((r) => Math.abs(r - 1) > 1e-6).sort((a, b) => a - b);
  const missing = pool.filter((type) => !builtIn.has(type)).length;
  return `Karpenter v1.15.0's built-in prices for ${prices.region} are ${region}'s: ${String(differing.length)} of ${String(ratios.length)} pool types priced differently from the race's table`
    + (differing.length === 0 ? '' : ` (built-in ÷ table ${differing[0]?.toFixed(3) ?? ''}–${differing.at(-1)?.toFixed(3) ?? ''})`)
    + `, ${String(missing)} not in it at all; in this race both decide from the table, through the Pricing API`;
}
