import type { Pod } from '../core/pod.js';
import { intersectRequirement, isUnsatisfiable, newRequirement, type Requirement } from '../requirements/requirement.js';
import { labels as wellKnown } from '../well-known-labels.js';
import type { NodePoolView } from './nodepool-view.js';
import { hostPortConflict, type Bin, type PlacementContext, type Rejection } from './placement-context.js';
import type { PodShape } from './pod-shape.js';
import type { ShapeVariant } from './relaxation.js';
import { chooseDomain, domainVerdict, type Universe } from './domain-rules.js';
import type { KeyConstraints } from './topology.js';
import type { TypeFilter } from './type-filter.js';
import type { TypeTable } from './type-table.js';

/**
 * Reused by every trial: most trials are rejected, so allocating a fresh array for each would feed the garbage
 * collector for nothing. A trial's types are copied out of it when the trial is committed.
 */
let scratch = new Int32Array(2048);

function scratchFor(length: number): Int32Array {
  if (scratch.length < length) scratch = new Int32Array(length * 2);
  return scratch;
}

/** A tentative state of a claim while a pod is being tried: committed only if every check passes. */
interface Trial {
  types: Int32Array;
  offerMask: number;
  custom: Map<string, Requirement>;
  decided: Map<string, string>;
}

/**
 * A planned NodeClaim: its pods, the instance types that still fit all of them (cheapest first) and the
 * offerings (zone × capacity type) still allowed. Adding a pod only narrows these.
 */
export class ClaimBin implements Bin {
  readonly name: string;
  readonly pool: NodePoolView;
  readonly pods: Pod[] = [];
  usedCpu = 0;
  usedMemory = 0;
  usedPods = 0;
  readonly usedExtended = new Map<string, number>();
  /** Room set aside for pods this claim was sized for (pending-demand.ts); other pods may not take it. */
  readonly held = { cpu: 0, memory: 0, pods: 0 };
  private maxCpu = Infinity;
  private maxMemory = Infinity;
  private maxPods = Infinity;
  private maxPrice = Infinity;
  /** Price of the cheapest option after the last commit. */
  private price = 0;
  private unitFloor = Infinity;
  private readonly hostPorts = new Set<string>();
  /** The type filters of the pods committed here: what any other type the claim may launch as must pass. */
  readonly filters = new Set<TypeFilter>();
  private readonly minValues: Requirement[];
  private state: Trial;

  /**
   * Sized for its expected pods (claim-sizer.ts): its options already stop at its budget. Flexible claims
   * (SimulationOptions.flexibleClaims) are treated alike: they grow into any type that holds their pods.
   */
  private readonly sized: boolean;

  constructor(name: string, pool: NodePoolView, options: { types: Int32Array; offerMask: number; sized: boolean }) {
    this.name = name;
    this.pool = pool;
    this.state = { types: options.types, offerMask: options.offerMask, custom: new Map(pool.customRequirements), decided: new Map([[wellKnown.hostname, name]]) };
    this.sized = options.sized;
    this.minValues = [...pool.minValues];
  }

  get types(): Int32Array { return this.state.types; }
  get offerMask(): number { return this.state.offerMask; }
  get decided(): ReadonlyMap<string, string> { return this.state.decided; }
  get customRequirements(): ReadonlyMap<string, Requirement> { return this.state.custom; }
  domainOf(key: string): string | undefined { return this.state.decided.get(key); }

  /**
   * Caps the options at the price the claim was sized for (claim-sizer.ts), once its first pod is in: options
   * are kept cheapest first, so this keeps a prefix, never empty.
   */
  capPrice(budget: number, table: TypeTable): void {
    const { types, offerMask } = this.state;
    let end = 0;
    while (end < types.length && table.cheapest(types[end] ?? 0, offerMask) <= budget) end++;
    this.state = { ...this.state, types: types.subarray(0, Math.max(end, 1)) };
    this.updateRoom();
  }

  /**
   * The options that still fit with the pod added. At least one must also keep the room held for the pods the
   * claim was sized for, or the pod is refused (empty result): it would crowd them out.
   */
  private narrowTypes(filter: TypeFilter, shape: PodShape, offerMask: number, table: TypeTable): Int32Array {
    const need = { cpu: this.usedCpu + shape.cpu, memory: this.usedMemory + shape.memory, pods: this.usedPods + 1 };
    const withHeld = { cpu: need.cpu + this.held.cpu, memory: need.memory + this.held.memory, pods: need.pods + this.held.pods };
    const out = scratchFor(this.state.types.length);
    let n = 0;
    let keepsHeld = false;
    for (const i of this.state.types) {
      if (filter.mask[i] !== 1 || !this.hasRoom(i, need) || ((table.offerMask[i] ?? 0) & offerMask) === 0) continue;
      if (!this.extendedFits(i, shape)) continue;
      out[n++] = i;
      keepsHeld ||= this.hasRoom(i, withHeld);
    }
    return out.subarray(0, keepsHeld ? n : 0);
  }

  private hasRoom(i: number, need: { cpu: number; memory: number; pods: number }): boolean {
    const { availCpu, availMemory, availPods } = this.pool;
    return (availCpu[i] ?? 0) >= need.cpu && (availMemory[i] ?? 0) >= need.memory && (availPods[i] ?? 0) >= need.pods;
  }

  private extendedFits(i: number, shape: PodShape): boolean {
    if (shape.extended.length === 0 && this.usedExtended.size === 0) return true;
    const allocatable = this.pool.types[i]?.allocatable ?? {};
    for (const [name, amount] of shape.extended) if ((this.usedExtended.get(name) ?? 0) + amount > (allocatable[name] ?? 0)) return false;
    return true;
  }

  private staticRejection(shape: PodShape, filter: TypeFilter): string | undefined {
    if (filter.failure !== undefined) return filter.failure;
    if (this.usedCpu + shape.cpu > this.maxCpu) return 'too little cpu';
    if (this.usedMemory + shape.memory > this.maxMemory) return 'too little memory';
    const port = hostPortConflict(this.hostPorts, shape.hostPorts);
    return port === undefined ? undefined : `host port ${port} in use`;
  }

  private mergeCustom(filter: TypeFilter): Map<string, Requirement> | undefined {
    if (filter.customRequirements.size === 0) return this.state.custom;
    const out = new Map(this.state.custom);
    for (const r of filter.customRequirements.values()) {
      const existing = out.get(r.key);
      const merged = existing === undefined ? r : intersectRequirement(existing, r);
      if (isUnsatisfiable(merged)) return undefined;
      out.set(r.key, merged);
    }
    return out;
  }

  /** No pod with at least these requests can still fit. */
  isFull(minCpu: number, minMemory: number): boolean {
    return this.usedCpu + minCpu > this.maxCpu || this.usedMemory + minMemory > this.maxMemory || this.usedPods + 1 > this.maxPods;
  }

  tryAdd(shape: PodShape, variant: ShapeVariant, ctx: PlacementContext): Rejection | undefined {
    // Cheapest test first: most bins a pod tries are simply full.
    if (this.usedCpu + this.held.cpu + shape.cpu > this.maxCpu) return { reason: 'too little cpu', permanent: true };
    if (this.usedMemory + this.held.memory + shape.memory > this.maxMemory) return { reason: 'too little memory', permanent: true };
    if (this.usedPods + this.held.pods + 1 > this.maxPods) return { reason: 'too few pod slots', permanent: true };
    const filter = ctx.filterFor(shape, variant, this.pool);
    const reason = this.staticRejection(shape, filter);
    if (reason !== undefined) return { reason, permanent: true };
    const custom = this.mergeCustom(filter);
    if (custom === undefined) return { reason: 'conflicting label requirements', permanent: true };
    const offerMask = this.state.offerMask & filter.offerMask;
    if (offerMask === 0) return { reason: 'no common zone and capacity type', permanent: true };
    const types = this.narrowTypes(filter, shape, offerMask, ctx.table);
    if (types.length === 0) return { reason: 'no instance type fits all its pods', permanent: true };
    const constrained = ctx.topology.constraints(shape, variant).length > 0;
    const trial: Trial = { types, offerMask, custom, decided: constrained ? new Map(this.state.decided) : this.state.decided };
    const topology = this.decideTopology(trial, shape, variant, ctx);
    if (topology !== undefined) return topology;
    if (!this.keepsMinValues(trial, variant)) return { reason: 'minValues would not hold', permanent: true };
    const newPrice = this.cheapestPrice(trial, ctx.table);
    if (!this.worthGrowing(newPrice, shape, filter, ctx)) {
      this.freeze(ctx.table);
      return { reason: 'a larger node would cost more per pod', permanent: true };
    }
    this.price = newPrice;
    this.unitFloor = Math.min(this.unitFloor, filter.bestUnitCost);
    this.commit(trial, shape, filter, ctx);
    ctx.topology.record(shape, variant, (k) => trial.decided.get(k), (t) => ctx.universe(t, variant));
    return undefined;
  }

  private commit(trial: Trial, shape: PodShape, filter: TypeFilter, ctx: PlacementContext): void {
    this.state = { ...trial, types: trial.types.buffer === scratch.buffer ? trial.types.slice() : trial.types };
    this.usedCpu += shape.cpu;
    this.usedMemory += shape.memory;
    this.usedPods += 1;
    for (const [name, amount] of shape.extended) this.usedExtended.set(name, (this.usedExtended.get(name) ?? 0) + amount);
    for (const p of shape.hostPorts) this.hostPorts.add(p);
    this.filters.add(filter);
    this.maxPrice = Math.min(this.maxPrice, filter.maxPrice);
    if (this.maxPrice < Infinity) this.state.types = trial.types.filter((i) => ctx.table.cheapest(i, trial.offerMask) <= this.maxPrice);
    this.updateRoom();
  }

  private updateRoom(): void {
    let maxCpu = 0;
    let maxMemory = 0;
    let maxPods = 0;
    for (const i of this.state.types) {
      maxCpu = Math.max(maxCpu, this.pool.availCpu[i] ?? 0);
      maxMemory = Math.max(maxMemory, this.pool.availMemory[i] ?? 0);
      maxPods = Math.max(maxPods, this.pool.availPods[i] ?? 0);
    }
    this.maxCpu = maxCpu;
    this.maxMemory = maxMemory;
    this.maxPods = maxPods;
  }

  /**
   * Once a claim declines to grow into a pricier option, it keeps only options at its current price, so later
   * pods see at once (through the room checks) whether they fit, and the solver can skip the claim when full.
   */
  private freeze(table: TypeTable): void {
    // minValues needs the spread of options; a claim with it keeps them all.
    if (this.minValues.length > 0) return;
    const kept = this.state.types.filter((i) => table.cheapest(i, this.state.offerMask) <= this.price);
    if (kept.length === 0) return;
    this.state = { ...this.state, types: kept };
    this.updateRoom();
  }

  private cheapestPrice(trial: Trial, table: TypeTable): number {
    // Options are kept cheapest first (per their filter's offerings), so the head holds the cheapest.
    let best = Infinity;
    const head = Math.min(trial.types.length, 8);
    for (let k = 0; k < head; k++) best = Math.min(best, table.cheapest(trial.types[k] ?? 0, trial.offerMask));
    return best;
  }

  /**
   * First fit alone grows a claim until only huge, dear types hold it. A claim that was not sized (minValues,
   * retried pods) accepts a pod that forces a pricier option only if its price per mean pod stays near the best
   * any type offers, or improves.
   */
  private worthGrowing(newPrice: number, shape: PodShape, filter: TypeFilter, ctx: PlacementContext): boolean {
    if (this.sized || this.pods.length === 0 || newPrice <= this.price) return true;
    const { meanCpu, meanMemory, slack } = ctx.growth;
    const usage = (cpu: number, memory: number): number => (cpu / meanCpu + memory / meanMemory) / 2;
    const unit = newPrice / usage(this.usedCpu + shape.cpu, this.usedMemory + shape.memory);
    if (unit <= Math.min(this.unitFloor, filter.bestUnitCost) * slack) return true;
    return unit <= this.price / usage(this.usedCpu, this.usedMemory);
  }

  /** The cheapest price a pod's max-price-per-hour still allows on this claim. */
  get priceCap(): number { return this.maxPrice; }

  private keepsMinValues(trial: Trial, variant: ShapeVariant): boolean {
    const wanted = [...this.minValues, ...[...variant.requirements.values()].filter((r) => r.minValues !== undefined)];
    for (const r of wanted) {
      const values = new Set<string>();
      for (const i of trial.types) {
        const v = this.pool.types[i]?.labels[r.key];
        if (v !== undefined) values.add(v);
      }
      if (values.size < (r.minValues ?? 0)) return false;
    }
    return true;
  }

  private domainOptions(trial: Trial, key: string, table: TypeTable, typeKeys: ReadonlySet<string>): string[] {
    const decided = trial.decided.get(key);
    if (decided !== undefined) return [decided];
    if (key === wellKnown.zone || key === wellKnown.capacityType) {
      let union = 0;
      for (const i of trial.types) union |= table.offerMask[i] ?? 0;
      const mask = union & trial.offerMask;
      return key === wellKnown.zone ? table.zonesIn(mask) : table.capacityTypesIn(mask);
    }
    if (typeKeys.has(key)) return [...new Set([...trial.types].map((i) => this.pool.types[i]?.labels[key]).filter((v) => v !== undefined))].sort();
    const requirement = trial.custom.get(key);
    if (requirement !== undefined && !requirement.complement) return [...requirement.values].sort();
    const label = this.pool.labels[key];
    return label === undefined ? [] : [label];
  }

  private narrow(trial: Trial, key: string, domain: string, ctx: PlacementContext): void {
    trial.decided.set(key, domain);
    const { table } = ctx;
    if (key === wellKnown.zone || key === wellKnown.capacityType) {
      trial.offerMask &= key === wellKnown.zone ? table.zoneMask(domain) : table.capacityTypeMask(domain);
      trial.types = trial.types.filter((i) => ((table.offerMask[i] ?? 0) & trial.offerMask) !== 0);
    } else if (ctx.typeKeys.has(key)) {
      trial.types = trial.types.filter((i) => this.pool.types[i]?.labels[key] === domain);
    } else {
      trial.custom.set(key, newRequirement(key, 'In', [domain]));
    }
  }

  private decideTopology(trial: Trial, shape: PodShape, variant: ShapeVariant, ctx: PlacementContext): Rejection | undefined {
    for (const constraints of ctx.topology.constraints(shape, variant)) {
      const options = this.domainOptions(trial, constraints.key, ctx.table, ctx.typeKeys);
      if (options.length === 0) {
        if (constraints.terms.some((t) => t.spec.kind !== 'antiAffinity')) return { reason: `no ${constraints.key} domain`, permanent: false };
        continue;
      }
      const domain = pickDomain(constraints, options, (t) => ctx.universe(t, variant), ctx.keepCarriers);
      if (typeof domain !== 'string') return { reason: `topology on ${constraints.key}`, permanent: domain.permanent };
      if (!trial.decided.has(constraints.key)) this.narrow(trial, constraints.key, domain, ctx);
      if (trial.types.length === 0) return { reason: `no instance type offered in ${constraints.key}=${domain}`, permanent: false };
    }
    return undefined;
  }
}

/** The domain to place the pod in, or whether every option is refused for good (a claim's options only narrow). */
function pickDomain(constraints: KeyConstraints, options: readonly string[], universe: Universe, keepCarriers: boolean): string | { permanent: boolean } {
  const allowed: string[] = [];
  let permanent = true;
  for (const d of options) {
    const verdict = domainVerdict(constraints, d, universe, keepCarriers);
    if (verdict === 'allowed') allowed.push(d);
    else permanent &&= verdict === 'permanent';
  }
  return chooseDomain(constraints, allowed) ?? { permanent };
}
