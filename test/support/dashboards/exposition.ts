/** One sample of the Prometheus text exposition format. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const labelPair = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

/** Parses `/metrics` text (version 0.0.4): comments skipped, label values unescaped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const name = brace === -1 ? (line.split(' ')[0] ?? '') : line.slice(0, brace);
    const rest = brace === -1 ? line.slice(name.length) : line.slice(close + 1);
    const labels: Record<string, string> = {};
    if (brace !== -1) {
      for (const m of line.slice(brace + 1, close).matchAll(labelPair)) labels[m[1] ?? ''] = (m[2] ?? '').replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    }
    const value = Number(rest.trim().split(' ')[0]);
    samples.push({ name, labels, value });
  }
  return samples;
}
