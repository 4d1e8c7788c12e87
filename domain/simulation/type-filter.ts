import { requirementAllows, intersectRequirement, isUnsatisfiable } from '../requirements/requirement.js';
import type { Requirements } from '../requirements/requirements.js';
import { firstUntoleratedTaint, describeTaint } from '../taints.js';
import { labels } from '../well-known-labels.js';
import { isCustomKey, type NodePoolView } from './nodepool-view.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant } from './relaxation.js';
import type { TypeTable } from './type-table.js';

/** The instance types one pod variant may use in one NodePool, and why the others were excluded. */
export interface TypeFilter {
  /** A NodePool-level reason nothing fits (taint, custom label, NodePool name), or undefined. */
  readonly failure?: string;
  readonly mask: Uint8Array;
  /** Allowed types, cheapest first. */
  readonly list: Int32Array;
  /** The cost-efficient subset new NodeClaims start from. */
  readonly efficient: Int32Array;
  readonly offerMask: number;
  readonly customRequirements: Requirements;
  /** Excluded-type counts by reason. */
  readonly reasons: ReadonlyMap<string, number>;
  readonly maxPrice: number;
  /** The lowest price per mean pod among the allowed types: what a well-packed claim can reach. */
  readonly bestUnitCost: number;
}

/** What every filter of one simulation shares. */
export interface FilterContext {
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  /** The batch's mean pod: cost efficiency is measured in how many of them a node holds. */
  readonly meanCpu: number;
  readonly meanMemory: number;
  readonly efficiencySlack: number;
  /** Mean pods' worth of room a node is expected to leave unused (packing is in whole pods). */
  readonly packingWaste: number;
}

function poolFailure(shape: PodShape, variant: ShapeVariant, pool: NodePoolView, ctx: FilterContext): string | undefined {
  const taint = firstUntoleratedTaint(shape.tolerations, pool.taints, variant.allowPreferNoSchedule);
  if (taint !== undefined) return `taint ${describeTaint(taint)} not tolerated`;
  for (const r of variant.requirements.values()) {
    if (r.key === labels.nodePool && !requirementAllows(r, pool.name)) return `excluded by ${labels.nodePool} requirement`;
    if (r.key === labels.hostname && !r.allowsAbsent) return `a new node cannot satisfy ${labels.hostname} requirement`;
    if (!isCustomKey(r.key, ctx.typeKeys)) continue;
    const own = pool.requirements.get(r.key);
    if (own === undefined ? !r.allowsAbsent : isUnsatisfiable(intersectRequirement(own, r))) return `label ${r.key} not offered by the NodePool`;
  }
  return undefined;
}

function offerMaskFor(variant: ShapeVariant, pool: NodePoolView, ctx: FilterContext): number {
  const zone = variant.requirements.get(labels.zone);
  const capacity = variant.requirements.get(labels.capacityType);
  return pool.offerMask & ctx.table.maskWhere((z) => zone === undefined || requirementAllows(zone, z), (c) => capacity === undefined || requirementAllows(capacity, c));
}

/** One filter run: the pod variant, its NodePool and the offerings and price it allows. */
interface FilterRun {
  readonly shape: PodShape;
  readonly variant: ShapeVariant;
  readonly pool: NodePoolView;
  readonly ctx: FilterContext;
  readonly offerMask: number;
  readonly maxPrice: number;
}

function labelReason(i: number, run: FilterRun): string | undefined {
  const t = run.pool.types[i];
  const excluded = run.pool.excludedBy[i];
  if (t === undefined) return 'unknown';
  if (excluded === 'offerings') return 'no offering the NodePool allows';
  if (excluded === 'image') return 'the EC2NodeClass cannot launch it: no image of the EC2NodeClass serves it (status.amis), or its cpuOptions, connectionTracking, networkInterfaces or placement group (unresolved, or a strategy the type lacks) rule the type out';
  if (excluded !== undefined) return `excluded by NodePool requirement ${excluded}`;
  for (const r of run.variant.requirements.values()) {
    if (run.ctx.typeKeys.has(r.key) && !requirementAllows(r, t.labels[r.key])) return `req|${r.key}|${t.labels[r.key] ?? '<none>'}`;
  }
  return undefined;
}

function resourceReason(i: number, run: FilterRun): string | undefined {
  const { shape, pool } = run;
  if (shape.cpu > (pool.availCpu[i] ?? 0)) return 'too little cpu';
  if (shape.memory > (pool.availMemory[i] ?? 0)) return 'too little memory';
  if (1 > (pool.availPods[i] ?? 0)) return 'too few pod slots';
  const allocatable = pool.types[i]?.allocatable ?? {};
  for (const [name, amount] of shape.extended) if (amount > (allocatable[name] ?? 0)) return `too little ${name}`;
  return undefined;
}

/** The first reason type i cannot hold the pod, or undefined. */
function typeReason(i: number, run: FilterRun): string | undefined {
  const label = labelReason(i, run);
  if (label !== undefined) return label;
  const { table } = run.ctx;
  if (((table.offerMask[i] ?? 0) & run.offerMask) === 0) return 'no available offering in the allowed zones and capacity types';
  if (table.cheapest(i, run.offerMask) > run.maxPrice) return 'above the max price per hour';
  return resourceReason(i, run);
}

function unitCosts(list: Int32Array, pool: NodePoolView, ctx: FilterContext, offerMask: number): { cost: (i: number) => number; best: number } {
  const cost = (i: number): number => {
    // Mean pods one node holds (its scarcest resource decides), less the expected waste of packing whole pods:
    // a node for 1.3 pods is far dearer per pod than its raw price per CPU suggests.
    const fits = Math.min(
      ctx.meanCpu > 0 ? (pool.availCpu[i] ?? 0) / ctx.meanCpu : Infinity,
      ctx.meanMemory > 0 ? (pool.availMemory[i] ?? 0) / ctx.meanMemory : Infinity,
      pool.availPods[i] ?? 0,
    );
    const units = fits - ctx.packingWaste;
    return units > 0 ? ctx.table.cheapest(i, offerMask) / units : Infinity;
  };
  let best = Infinity;
  for (const i of list) best = Math.min(best, cost(i));
  return { cost, best };
}

/** Filters the catalog for one pod variant in one NodePool (cached by the caller per shape variant × NodePool). */
export function filterTypes(shape: PodShape, variant: ShapeVariant, pool: NodePoolView, ctx: FilterContext): TypeFilter {
  const n = ctx.table.n;
  const mask = new Uint8Array(n);
  const reasons = new Map<string, number>();
  const maxPrice = shape.steering.maxPricePerHour ?? Infinity;
  const customRequirements = new Map([...variant.requirements].filter(([k]) => isCustomKey(k, ctx.typeKeys)));
  const failure = poolFailure(shape, variant, pool, ctx);
  const offerMask = offerMaskFor(variant, pool, ctx);
  if (failure !== undefined) return { failure, mask, list: new Int32Array(0), efficient: new Int32Array(0), offerMask, customRequirements, reasons, maxPrice, bestUnitCost: Infinity };
  const ok: number[] = [];
  const run: FilterRun = { shape, variant, pool, ctx, offerMask, maxPrice };
  for (let i = 0; i < n; i++) {
    const reason = typeReason(i, run);
    if (reason === undefined) {
      mask[i] = 1;
      ok.push(i);
    } else reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const prices = new Float64Array(n);
  for (const i of ok) prices[i] = ctx.table.cheapest(i, offerMask);
  ok.sort((a, b) => (prices[a] ?? 0) - (prices[b] ?? 0) || a - b);
  const list = Int32Array.from(ok);
  const { cost, best } = unitCosts(list, pool, ctx, offerMask);
  const efficient = list.filter((i) => cost(i) <= best * ctx.efficiencySlack);
  return { mask, list, efficient, offerMask, customRequirements, reasons, maxPrice, bestUnitCost: best };
}
