import type { QuantityValue } from './core/pod.js';

/** A Kubernetes quantity that does not parse ("1.5.2Gi", "ten"). */
export class QuantityError extends Error {
  readonly input: string;
  readonly code = 'InvalidQuantity' as const;
  constructor(input: string) {
    super(`invalid quantity "${input}": expected a number with an optional suffix such as 500m, 2, 1.5Gi or 1e3`);
    this.input = input;
    this.name = 'QuantityError';
  }
}

const pattern = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;
const binaryPowers: Readonly<Record<string, bigint>> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const decimalExponents: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b < a ? q + 1n : q;
}

function scaleNanos(mantissa: bigint, exponent10: number, binaryPower: bigint): bigint {
  // nanos = mantissa × 10^exponent10 × 2^binaryPower × 10^9; finer precision rounds up like Kubernetes.
  const shifted = mantissa << binaryPower;
  const exponent = exponent10 + 9;
  return exponent >= 0 ? shifted * 10n ** BigInt(exponent) : ceilDiv(shifted, 10n ** BigInt(-exponent));
}

/** A suffix as (power of ten, power of two); "E" alone is exa, "E3" or "e3" an exponent. */
function suffixScale(suffix: string): [number, bigint] {
  const binary = binaryPowers[suffix];
  if (binary !== undefined) return [0, binary];
  if (/^[eE]./.test(suffix)) return [Number(suffix.slice(1)), 0n];
  return [decimalExponents[suffix] ?? 0, 0n];
}

/**
 * Parses a Kubernetes quantity exactly, as an integer count of nano-units (bigint), so that "0.1" + "0.2"
 * is exactly "0.3" and "1Ei" does not lose precision. Throws {@link QuantityError}.
 */
export function parseQuantity(value: QuantityValue): bigint {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = pattern.exec(text);
  if (match === null) throw new QuantityError(String(value));
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  const mantissa = BigInt(`${whole}${fraction}` || '0');
  const [exponent10, binaryPower] = suffixScale(suffix);
  const nanos = scaleNanos(mantissa, exponent10 - fraction.length, binaryPower);
  return sign === '-' ? -nanos : nanos;
}

/** Rounds nano-units up to milli-units, as resource.Quantity.MilliValue does. */
export function nanosToMilli(nanos: bigint): number {
  return Number(ceilDiv(nanos, 1_000_000n));
}

/** Rounds nano-units up to whole units, as resource.Quantity.Value does. */
export function nanosToUnits(nanos: bigint): number {
  return Number(ceilDiv(nanos, 1_000_000_000n));
}

/**
 * The simulation's integer scale for a resource, as kube-scheduler keeps it: `cpu` in millicores, every other
 * resource (memory bytes, pods, ephemeral-storage bytes, extended resources) in whole units, rounded up.
 */
export function resourceAmount(resource: string, value: QuantityValue): number {
  const nanos = parseQuantity(value);
  return resource === 'cpu' ? nanosToMilli(nanos) : nanosToUnits(nanos);
}

const binaryUnits: readonly (readonly [string, number])[] = [['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];

/** Formats a resource amount (see {@link resourceAmount}) back into a readable quantity string. */
export function formatAmount(resource: string, amount: number): string {
  if (resource === 'cpu') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (resource !== 'memory' && resource !== 'ephemeral-storage') return String(amount);
  for (const [unit, size] of binaryUnits) {
    if (amount >= size && amount % size === 0) return `${amount / size}${unit}`;
  }
  for (const [unit, size] of binaryUnits) {
    if (amount >= size) return `${(amount / size).toFixed(1)}${unit}`;
  }
  return String(amount);
}
