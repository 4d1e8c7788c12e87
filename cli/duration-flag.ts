/** A flag's duration like 500ms, 1s or 2m, in milliseconds; a problem naming the flag when it is not one. */
/** Milliseconds as the flag's own text: 1s for 1000, 2m for 120000, 500ms for 500 (a default shown in `--help`). */
export function durationText(ms: number): string {
  if (ms > 0 && ms % 60_000 === 0) return `${String(ms / 60_000)}m`;
  if (ms > 0 && ms % 1000 === 0) return `${String(ms / 1000)}s`;
  return `${String(ms)}ms`;
}

export function durationMs(text: string, flag: string, problems: string[]): number {
  const m = /^(\d+)(ms|s|m)$/.exec(text);
  if (m === null) { problems.push(`--${flag} must be a duration like 500ms, 1s or 2m; got "${text}"`); return 0; }
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}
