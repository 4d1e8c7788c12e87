import { sameSpotPrices, type SpotPriceOrigin, type SpotPriceSource, type SpotPriceTable } from '../../domain/cloud/spot-prices.js';
import type { DescribedInstanceTypes } from '../../domain/instance-types/catalog-entry.js';
import type { InstanceType, Offering } from '../../domain/instance-types/instance-type.js';
import { applyNodeOverlays, overlaidOffering, type NodeOverlayLike, type OverlayVerdict } from '../../domain/instance-types/node-overlay.js';
import { plainReservedOffering } from '../../domain/simulation/reserved-capacity.js';
import { type ControllerLogger, type ReconcileResult } from '../runtime/controller-runner.js';
import { OptionsController } from '../runtime/options-controller.js';

/** What the cloud has answered so far; each part left out falls back to the embedded catalog. */
export interface CatalogInputs {
  readonly spotPrices?: SpotPriceTable;
  readonly described?: DescribedInstanceTypes;
  readonly onDemandPrices?: ReadonlyMap<string, number>;
}

export interface PricedInstanceTypesOptions {
  /** Builds the catalog; without spot prices it estimates spot from on-demand (the embedded fallback). */
  readonly build: (inputs: CatalogInputs) => readonly InstanceType[];
  /** Unset: prices stay the catalog's estimate (offline, or turned off by a flag). */
  readonly source?: SpotPriceSource;
  /** How often to ask for prices again (default 5 minutes). */
  readonly intervalMs?: number;
  readonly log?: ControllerLogger;
}

/** How often spot prices are refreshed unless `--spot-price-refresh` says otherwise. */
export const spotPricePeriodMs = 5 * 60_000;

/**
 * The instance types the planner and launches price offerings with. Spot prices come from the
 * cloud per type and zone, refreshed periodically; the embedded catalog's estimate is used only
 * until the first answer and whenever the cloud reports no prices at all. The catalog is rebuilt
 * only when a price changed, so a steady market costs one API call per interval and nothing else.
 * The described types and on-demand prices arrive through {@link useDescribed} and
 * {@link useOnDemandPrices} (their own refresh controllers); each rebuilds the catalog once, never per plan.
 */
export class PricedInstanceTypes extends OptionsController<PricedInstanceTypesOptions> {
  readonly name = 'pricing.spot';
  #prices: SpotPriceTable | undefined;
  #described: DescribedInstanceTypes | undefined;
  #onDemand: ReadonlyMap<string, number> | undefined;
  /** The cloud's types and prices before overlays. */
  #built: readonly InstanceType[];
  #overlays: readonly NodeOverlayLike[] = [];
  #verdicts: ReadonlyMap<string, OverlayVerdict> = new Map();
  #types: readonly InstanceType[];
  #byName: ReadonlyMap<string, InstanceType>;

  constructor(options: PricedInstanceTypesOptions) {
    super(options);
    this.#built = options.build({});
    this.#types = this.#built;
    this.#byName = byName(this.#types);
  }

  /**
   * NodeOverlays (valid ones; the NodeOverlay gate is on) applied over the cloud's prices and capacity from now on,
   * so the planner, the extender's plans, consolidation, launches and the cost metrics all see the overlaid types.
   */
  useOverlays(overlays: readonly NodeOverlayLike[]): void {
    this.#overlays = overlays;
    this.#overlay();
  }

  /** What became of each overlay in the last application (conflicts are reported in its status). */
  overlayVerdicts(): ReadonlyMap<string, OverlayVerdict> {
    return this.#verdicts;
  }

  #overlay(): void {
    const { types, verdicts } = applyNodeOverlays(this.#built, this.#overlays);
    this.#types = types;
    this.#verdicts = verdicts;
    this.#byName = byName(types);
  }

  /** Instance types and zones as the cloud describes them, replacing the embedded types. */
  useDescribed(described: DescribedInstanceTypes): void {
    this.#described = described;
    this.#rebuild();
  }

  /** On-demand prices from the cloud, over the embedded table. */
  useOnDemandPrices(prices: ReadonlyMap<string, number>): void {
    if (this.#onDemand !== undefined && sameOnDemandPrices(this.#onDemand, prices)) return;
    this.#onDemand = prices;
    this.#rebuild();
  }

  #rebuild(): void {
    this.#built = this.options.build({
      ...(this.#prices === undefined ? {} : { spotPrices: this.#prices }),
      ...(this.#described === undefined ? {} : { described: this.#described }),
      ...(this.#onDemand === undefined ? {} : { onDemandPrices: this.#onDemand }),
    });
    this.#overlay();
  }

  instanceTypes(): readonly InstanceType[] {
    return this.#types;
  }

  catalog(): ReadonlyMap<string, InstanceType> {
    return this.#byName;
  }

  /**
   * The reserved offering of a type in a zone, priced as Karpenter prices it (reservedPrice of the cloud's on-demand
   * price) and then overlaid like every other offering, so an overlay that selects `karpenter.sh/capacity-type:
   * reserved` (say, the amortised price of a reservation) is honoured. Undefined for a type the catalog lacks.
   */
  reservedOffering(typeName: string, zone: string, available: boolean): Offering | undefined {
    const type = this.#built.find((t) => t.name === typeName);
    if (type === undefined) return undefined;
    const offering = plainReservedOffering(type, zone, available);
    return this.#overlays.length === 0 ? offering : overlaidOffering(type, offering, this.#overlays, this.#verdicts);
  }

  origin(): SpotPriceOrigin {
    return this.#prices === undefined ? 'catalog-estimate' : 'ec2-spot-price-history';
  }

  async reconcile(): Promise<ReconcileResult> {
    const intervalMs = this.options.intervalMs ?? spotPricePeriodMs;
    if (this.options.source === undefined) return { requeueAfterMs: intervalMs };
    const table = await this.options.source.current();
    const next = table.size === 0 ? undefined : table;
    if (!sameSpotPrices(next, this.#prices)) {
      this.#prices = next;
      this.#rebuild();
      this.log.info({ component: this.name, origin: this.origin(), types: next?.size ?? 0 }, 'updated spot prices');
    }
    return { requeueAfterMs: intervalMs };
  }
}

function sameOnDemandPrices(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([type, price]) => b.get(type) === price);
}

function byName(types: readonly InstanceType[]): ReadonlyMap<string, InstanceType> {
  return new Map(types.map((t) => [t.name, t]));
}
