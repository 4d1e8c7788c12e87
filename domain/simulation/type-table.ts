import type { InstanceType } from '../instance-types/instance-type.js';
import { offeringKey } from '../instance-types/instance-type.js';

/**
 * The instance types as parallel typed arrays, indexed 0..n-1, so that filters are tight loops over numbers.
 * Offerings are a bitmask per type: bit (zoneIndex × capacityTypes + capacityTypeIndex).
 */
export class TypeTable {
  readonly types: readonly InstanceType[];
  readonly n: number;
  readonly cpu: Float64Array;
  readonly memory: Float64Array;
  readonly pods: Float64Array;
  readonly zones: readonly string[];
  readonly capacityTypes: readonly string[];
  /** Available offerings per type. */
  readonly offerMask: Int32Array;
  /** Price per type × offering bit (Infinity when not offered). */
  private readonly prices: Float64Array;
  private readonly bits: number;

  constructor(types: readonly InstanceType[], unavailable: ReadonlySet<string>) {
    this.types = types;
    this.n = types.length;
    this.cpu = Float64Array.from(types, (t) => t.allocatable['cpu'] ?? 0);
    this.memory = Float64Array.from(types, (t) => t.allocatable['memory'] ?? 0);
    this.pods = Float64Array.from(types, (t) => t.allocatable['pods'] ?? 0);
    this.zones = [...new Set(types.flatMap((t) => t.offerings.map((o) => o.zone)))].sort();
    this.capacityTypes = [...new Set(types.flatMap((t) => t.offerings.map((o) => o.capacityType)))].sort();
    this.bits = this.zones.length * this.capacityTypes.length;
    if (this.bits > 30) throw new RangeError(`too many zone × capacity-type combinations (${this.bits}); at most 30 are supported`);
    this.offerMask = new Int32Array(this.n);
    this.prices = new Float64Array(this.n * this.bits).fill(Infinity);
    types.forEach((t, i) => {
      for (const o of t.offerings) {
        if (!o.available || unavailable.has(offeringKey(o.capacityType, t.name, o.zone))) continue;
        const bit = this.bit(o.zone, o.capacityType);
        this.offerMask[i] = (this.offerMask[i] ?? 0) | (1 << bit);
        this.prices[i * this.bits + bit] = Math.min(this.prices[i * this.bits + bit] ?? Infinity, o.price);
      }
    });
  }

  /** The offering bit of a zone and capacity type. */
  bit(zone: string, capacityType: string): number {
    return this.zones.indexOf(zone) * this.capacityTypes.length + this.capacityTypes.indexOf(capacityType);
  }

  /** Every offering bit whose zone (or capacity type) is allowed by the predicates. */
  maskWhere(zoneOk: (zone: string) => boolean, capacityTypeOk: (capacityType: string) => boolean): number {
    let mask = 0;
    this.zones.forEach((z, zi) => {
      this.capacityTypes.forEach((c, ci) => {
        if (zoneOk(z) && capacityTypeOk(c)) mask |= 1 << (zi * this.capacityTypes.length + ci);
      });
    });
    return mask;
  }

  /** The cheapest price of type i over the allowed offering bits (Infinity if none). */
  cheapest(i: number, mask: number): number {
    const available = (this.offerMask[i] ?? 0) & mask;
    let best = Infinity;
    for (let bit = 0; bit < this.bits; bit++) {
      if ((available & (1 << bit)) !== 0) best = Math.min(best, this.prices[i * this.bits + bit] ?? Infinity);
    }
    return best;
  }

  /** Zones present in an offering mask. */
  zonesIn(mask: number): string[] {
    return this.zones.filter((_, zi) => this.capacityTypes.some((_c, ci) => (mask & (1 << (zi * this.capacityTypes.length + ci))) !== 0));
  }

  /** Capacity types present in an offering mask. */
  capacityTypesIn(mask: number): string[] {
    return this.capacityTypes.filter((_, ci) => this.zones.some((_z, zi) => (mask & (1 << (zi * this.capacityTypes.length + ci))) !== 0));
  }

  /** The offering bits of one zone (any capacity type). */
  zoneMask(zone: string): number {
    return this.maskWhere((z) => z === zone, () => true);
  }

  /** The offering bits of one capacity type (any zone). */
  capacityTypeMask(capacityType: string): number {
    return this.maskWhere(() => true, (c) => c === capacityType);
  }
}
