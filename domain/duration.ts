/**
 * Go's `time.ParseDuration`, because Karpenter's duration fields (`expireAfter`, `consolidateAfter`,
 * `terminationGracePeriod`, budget `duration`) and the pod annotation `karpenter.sh/do-not-disrupt: 5m` are parsed
 * by it: "1h30m", "90s", "1.5h", "300ms", "0". Anything it would refuse ("5 minutes", "1d", "") is undefined here.
 */

const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000,
};

const whole = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/u;
const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gu;

/** Milliseconds, or undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '+0' || text === '-0') return 0;
  if (!whole.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(part)) total += Number(amount) * (unitMs[unit ?? ''] ?? Number.NaN);
  return text.startsWith('-') ? -total : total;
}

/** Karpenter's nillable durations (`expireAfter`, `consolidateAfter`): `Never` (or unset) is "no limit". */
export function parseNillableDuration(text: string | undefined): number | undefined {
  if (text === undefined || text === 'Never') return undefined;
  return parseGoDuration(text);
}

/**
 * Go's `time.Duration.String()` for milliseconds: "1m30s", "1h0m0s", "1.5s", "300ms", "0s". Karpenter
 * writes the kubelet's eviction grace periods this way, whatever spelling the user chose.
 */
export function formatGoDuration(ms: number): string {
  const ns = Math.round(Math.abs(ms) * 1e6);
  const sign = ms < 0 && ns > 0 ? '-' : '';
  if (ns === 0) return '0s';
  if (ns < 1e3) return `${sign}${String(ns)}ns`;
  if (ns < 1e6) return `${sign}${fraction(ns, 1e3)}µs`;
  if (ns < 1e9) return `${sign}${fraction(ns, 1e6)}ms`;
  const hours = Math.floor(ns / 3.6e12);
  const minutes = Math.floor((ns % 3.6e12) / 6e10);
  const seconds = `${fraction(ns % 6e10, 1e9)}s`;
  if (hours > 0) return `${sign}${String(hours)}h${String(minutes)}m${seconds}`;
  if (minutes > 0) return `${sign}${String(minutes)}m${seconds}`;
  return `${sign}${seconds}`;
}

/** `value / unit` with Go's trailing zeros trimmed: 1500000/1e6 → "1.5". */
function fraction(value: number, unit: number): string {
  const whole = Math.floor(value / unit);
  const rest = value % unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${String(whole)}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
