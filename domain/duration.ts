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
