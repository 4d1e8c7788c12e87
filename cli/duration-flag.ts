/** A flag's duration like 500ms, 1s or 2m, in milliseconds; a problem naming the flag when it is not one. */
export function durationMs(text: string, flag: string, problems: string[]): number {
  const m = /^(\d+)(ms|s|m)$/.exec(text);
  if (m === null) { problems.push(`--${flag} must be a duration like 500ms, 1s or 2m; got "${text}"`); return 0; }
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}
