import type { Pod } from '../core/pod.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { ClaimSizer } from './claim-sizer.js';
import { ClaimBin } from './claim-bin.js';
import type { ExistingBin } from './existing-bin.js';
import { ExistingIndex } from './existing-index.js';
import { withinLimits } from './nodepool-limits.js';
import type { NodePoolView } from './nodepool-view.js';
import type { Bin, PlacementContext } from './placement-context.js';
import type { PendingDemand } from './pending-demand.js';
import type { PodShape } from './pod-shape.js';
import { ReasonCollector, typeReasonsText } from './reasons.js';
import type { ShapeVariant } from './relaxation.js';
import type { SnapshotNode } from './simulation-input.js';
import type { StandingCluster, StandingNode } from './standing-cluster.js';
import { spreadDomains } from './spread-domains.js';
import type { BoundTerm, Topology } from './topology.js';
import { filterTypes, type FilterContext, type TypeFilter } from './type-filter.js';
import type { TypeTable } from './type-table.js';

/** The solver's inputs once compiled. */
export interface SolverSetup {
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  readonly topology: Topology;
  readonly pools: readonly NodePoolView[];
  readonly nodes: readonly SnapshotNode[];
  /** The same nodes as the standing cluster keeps them (free room, ports, domain counts). */
  readonly standing: { readonly cluster: StandingCluster; readonly nodes: readonly StandingNode[] };
  readonly filterContext: FilterContext;
  /** The smallest CPU and memory request of any pending pod. */
  readonly minCpu: number;
  readonly minMemory: number;
  readonly growth: PlacementContext['growth'];
  /** Start claims from every fitting type and let the growth rule bound them (else from the efficient subset). */
  readonly growAnyType: boolean;
  /** SimulationOptions.flexibleClaims: every fitting type, no growth rule (consolidation's replacements). */
  readonly flexibleClaims: boolean;
  /** The pods not placed yet, by request class: what new claims will be filled with. */
  readonly demand: PendingDemand<ClaimBin>;
}

/** Outcome of placing one pod: where, or why not. */
export type Placement = { readonly bin: Bin } | { readonly reason: string; readonly retry: boolean };

/**
 * First-fit placement over existing nodes, then planned NodeClaims, then a new NodeClaim per NodePool in weight
 * order, relaxing preferences one step at a time (Karpenter's scheduler loop). Filters are cached per shape
 * variant × NodePool, and a per-variant cursor skips bins that rejected it for good.
 */
export class Solver implements PlacementContext {
  private readonly setup: SolverSetup;
  readonly table: TypeTable;
  readonly typeKeys: ReadonlySet<string>;
  readonly topology: Topology;
  readonly growth: PlacementContext['growth'];
  keepCarriers = true;
  private readonly existingIndex: ExistingIndex;
  readonly claims: ClaimBin[] = [];
  private readonly bins: Bin[];
  private readonly filters: (TypeFilter | undefined)[][][] = [];
  private readonly sharedFilters = new Map<string, TypeFilter>();
  private readonly universes = new Map<string, readonly string[]>();
  private readonly cursors = new Map<string, number>();
  private readonly claimCount = new Map<string, number>();
  private readonly reasons = new ReasonCollector();
  private readonly sizer: ClaimSizer;

  constructor(setup: SolverSetup) {
    this.setup = setup;
    this.table = setup.table;
    this.typeKeys = setup.typeKeys;
    this.topology = setup.topology;
    this.growth = setup.growth;
    this.existingIndex = new ExistingIndex(setup.standing.nodes, setup.standing.cluster.nodesByFreeCpu());
    this.bins = [];
    this.sizer = new ClaimSizer(setup.demand, setup.table);
  }

  filterFor(shape: PodShape, variant: ShapeVariant, pool: NodePoolView): TypeFilter {
    const slot = (this.filters[shape.id] ??= [])[variant.index] ??= [];
    let filter = slot[pool.index];
    if (filter === undefined) {
      // Shapes that differ only in labels (one per Deployment) share a filter: it depends on requests,
      // requirements, tolerations and price cap, not on the pod's identity.
      const shared = `${pool.index}|${variant.signature}|${variant.allowPreferNoSchedule}|${shape.cpu}|${shape.memory}|${JSON.stringify(shape.extended)}|${JSON.stringify(shape.tolerations)}|${shape.steering.maxPricePerHour ?? ''}`;
      filter = this.sharedFilters.get(shared) ?? filterTypes(shape, variant, pool, this.setup.filterContext);
      this.sharedFilters.set(shared, filter);
      slot[pool.index] = filter;
    }
    return filter;
  }

  private currentShape: PodShape | undefined;

  universe(term: BoundTerm, variant: ShapeVariant): readonly string[] {
    const shape = this.currentShape;
    if (shape === undefined) return [];
    // The domains depend on the key, the policies, the pod's requirements and (honoured taints) its tolerations
    // only, so shapes that share those share the list.
    const { topologyKey, honorNodeAffinity, honorTaints } = term.spec;
    const key = `${topologyKey}/${honorNodeAffinity ? variant.signature : ''}/${honorTaints ? JSON.stringify(shape.tolerations) : ''}`;
    let domains = this.universes.get(key);
    if (domains === undefined) {
      domains = spreadDomains(term, shape, variant, { pools: this.setup.pools, nodes: this.setup.nodes, table: this.table, typeKeys: this.typeKeys, standing: this.setup.standing.cluster });
      this.universes.set(key, domains);
    }
    return domains;
  }

  /**
   * Places one pod (or explains why not); on success the pod is appended to the bin's pods. Existing nodes come
   * first, then a claim that set room aside for a pod like this one, then first fit, then a new claim. Only the
   * first attempt at a pod moves reservations (`first`); retries of pod-affinity pods do not.
   */
  place(pod: Pod, shape: PodShape, first: boolean): Placement {
    this.currentShape = shape;
    const c = this.setup.demand.classOf(shape);
    if (first) this.setup.demand.take(c);
    const placement = this.placeVariants(shape, first ? c : undefined);
    if ('bin' in placement) placement.bin.pods.push(pod);
    return placement;
  }

  /**
   * Tries each variant in relaxation order; `c` is the pod's class on its first attempt. A pod that other pods'
   * spread constraints count is first held to their skew; only if it has no place at all is it tried without.
   */
  private placeVariants(shape: PodShape, c: number | undefined): Placement {
    let retry = false;
    const loose = this.topology.matching(shape).some((g) => g.carrierSkew < Infinity);
    for (const keep of loose ? [true, false] : [true]) {
      this.keepCarriers = keep;
      const tried = this.tryVariants(shape, c);
      this.keepCarriers = true;
      if ('bin' in tried) return tried;
      retry ||= tried.retry;
    }
    if (c !== undefined) this.setup.demand.settle(c, { lent: false });
    const last = shape.variants[shape.variants.length - 1];
    return { reason: this.reasons.message(last?.relaxed ?? []), retry };
  }

  private tryVariants(shape: PodShape, c: number | undefined): { bin: Bin } | { retry: boolean } {
    let retry = false;
    for (const variant of shape.variants) {
      this.reasons.reset();
      const existing = this.existingIndex.place(shape, variant, this, this.reasons);
      const reserved = existing !== undefined || c === undefined ? undefined : this.tryReserved(shape, variant, c);
      const bin = existing ?? reserved ?? this.tryBins(shape, variant) ?? this.tryNewClaim(shape, variant, c !== undefined);
      if (bin !== undefined) {
        if (bin instanceof ClaimBin) this.setup.demand.locate(bin, bin.domainOf(wellKnown.zone));
        if (c !== undefined) this.setup.demand.settle(c, { holder: reserved, lent: reserved !== undefined });
        return { bin };
      }
      retry ||= variant.terms.some((t) => t.kind === 'affinity');
    }
    return { retry };
  }

  /** Nodes that exist, in the input's order. */
  get existing(): readonly ExistingBin[] {
    return this.existingIndex.bins;
  }

  /** A claim that expects a pod of class c takes it (existing nodes were tried first). */
  private tryReserved(shape: PodShape, variant: ShapeVariant, c: number): ClaimBin | undefined {
    const demand = this.setup.demand;
    const holders = demand.holdersFor(c, 4);
    if (holders.length === 0) return undefined;
    for (const claim of holders) {
      demand.lend(claim, c, 1);
      if (claim.tryAdd(shape, variant, this) === undefined) return claim;
      demand.lend(claim, c, -1);
    }
    return undefined;
  }

  private tryBins(shape: PodShape, variant: ShapeVariant): Bin | undefined {
    // Rejections that are permanent while spread carriers are kept may not be once they are not.
    const cursorKey = `${shape.id}/${variant.index}/${this.keepCarriers}`;
    let cursor = Math.max(this.cursors.get(cursorKey) ?? 0, this.firstOpen);
    let advancing = true;
    for (let i = cursor; i < this.bins.length; i++) {
      const bin = this.bins[i];
      if (bin === undefined) continue;
      const rejection = bin.tryAdd(shape, variant, this);
      if (rejection === undefined) {
        this.cursors.set(cursorKey, cursor);
        this.advanceFirstOpen();
        return bin;
      }
      advancing &&= rejection.permanent;
      if (advancing) cursor = i + 1;
    }
    this.cursors.set(cursorKey, cursor);
    return undefined;
  }

  /** Bins before this index cannot take even the smallest pending pod, so no shape needs to try them. */
  private firstOpen = 0;

  private advanceFirstOpen(): void {
    const { minCpu, minMemory } = this.setup;
    while (this.firstOpen < this.bins.length) {
      if (!this.bins[this.firstOpen]?.isFull(minCpu, minMemory)) return;
      this.firstOpen++;
    }
  }

  private orderedPools(shape: PodShape): readonly NodePoolView[] {
    const preferred = shape.steering.preferredNodePool;
    if (preferred === undefined) return this.setup.pools;
    return [...this.setup.pools.filter((p) => p.name === preferred), ...this.setup.pools.filter((p) => p.name !== preferred)];
  }

  /**
   * The options a new claim starts from, and whether it is to be sized for the pods expected to fill it
   * (claim-sizer.ts) once its first pod is in (which decides its zone). minValues needs every fitting type
   * instead, and retried pods (which move no reservations) start from the cost-efficient subset; both are then
   * held back by the claim's growth rule.
   */
  private startingOptions(shape: PodShape, variant: ShapeVariant, pool: NodePoolView, first: boolean): { types: Int32Array; sized: boolean } {
    const filter = this.filterFor(shape, variant, pool);
    const state = { nodes: this.setup.nodes, claims: this.claims };
    const wantsFlexibility = pool.minValues.length > 0 || [...variant.requirements.values()].some((r) => r.minValues !== undefined);
    if (wantsFlexibility || this.setup.growAnyType || this.setup.flexibleClaims) return { types: withinLimits(pool, filter.list, state), sized: this.setup.flexibleClaims };
    if (!first) return { types: withinLimits(pool, filter.efficient, state), sized: false };
    const allowed = withinLimits(pool, filter.list, state);
    return { types: allowed, sized: allowed.length > 0 };
  }

  /** Sizes a claim that holds its first pod: caps its options at the plan's budget and reserves the pods it expects. */
  private size(claim: ClaimBin, types: Int32Array, shape: PodShape): void {
    const demand = this.setup.demand;
    const zone = claim.domainOf(wellKnown.zone);
    const { plan } = this.sizer.size(types, { podClass: demand.classOf(shape), pool: claim.pool, offerMask: claim.offerMask, zone });
    claim.capPrice(plan.budget, this.table);
    demand.reserve(claim, plan.expected, zone);
  }

  private tryNewClaim(shape: PodShape, variant: ShapeVariant, first: boolean): Bin | undefined {
    for (const pool of this.orderedPools(shape)) {
      const filter = this.filterFor(shape, variant, pool);
      if (filter.failure !== undefined) {
        this.reasons.pool(pool.name, filter.failure);
        continue;
      }
      if (filter.list.length === 0) {
        this.reasons.pool(pool.name, typeReasonsText(filter.reasons, this.table.n));
        continue;
      }
      const { types, sized } = this.startingOptions(shape, variant, pool, first);
      if (types.length === 0) {
        this.reasons.pool(pool.name, `limits reached (${Object.keys(pool.limits ?? {}).join(', ')})`);
        continue;
      }
      const count = (this.claimCount.get(pool.name) ?? 0) + 1;
      const claim = new ClaimBin(`${pool.name}-${String(count).padStart(5, '0')}`, pool, { types, offerMask: filter.offerMask, sized });
      const rejection = claim.tryAdd(shape, variant, this);
      if (rejection !== undefined) {
        this.reasons.pool(pool.name, `${filter.list.length} instance types fit, but ${rejection.reason} cannot be satisfied`);
        continue;
      }
      this.claimCount.set(pool.name, count);
      if (sized && !this.setup.flexibleClaims) this.size(claim, types, shape);
      this.claims.push(claim);
      this.bins.push(claim);
      return claim;
    }
    return undefined;
  }
}
