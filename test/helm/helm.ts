import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const chartDir = fileURLToPath(new URL('../../charts/nodesmith', import.meta.url));

let cached: Promise<string> | undefined;

/** Helm, built once from its Go module by build-helm.sh and cached by version outside the repo. */
export function helmBinary(): Promise<string> {
  cached ??= (async () => {
    const script = fileURLToPath(new URL('../stack/build-helm.sh', import.meta.url));
    const { stdout } = await run('bash', [script], { maxBuffer: 16 * 1024 * 1024 });
    const bin = stdout.trim().split('\n').at(-1);
    if (bin === undefined || bin === '') throw new Error('build-helm.sh printed no helm path');
    return bin;
  })();
  return cached;
}

export interface HelmResult { readonly code: number; readonly stdout: string; readonly stderr: string }

/** Runs helm with these arguments; never throws on a non-zero exit, so tests can assert on refusals. */
export async function helm(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<HelmResult> {
  const bin = await helmBinary();
  try {
    const { stdout, stderr } = await run(bin, [...args], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error: unknown) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

/** `helm template` of the chart with --set pairs (typed as helm types them) and values files; rejects with helm's message on failure. */
export async function helmTemplate(options: { set?: Readonly<Record<string, string>>; valuesFiles?: readonly string[]; namespace?: string; release?: string } = {}): Promise<string> {
  const args = ['template', options.release ?? 'nodesmith', chartDir, '--namespace', options.namespace ?? 'nodesmith'];
  for (const file of options.valuesFiles ?? []) args.push('--values', file);
  for (const [key, value] of Object.entries(options.set ?? {})) args.push('--set', `${key}=${value}`);
  const r = await helm(args);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** helm template's output split by the template that produced each document, in helm's order. */
export function documentsBySource(rendered: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const chunk of rendered.split(/^---\n/m)) {
    const match = /^# Source: [^/]+\/(.+)\n/.exec(chunk);
    if (match?.[1] === undefined) continue;
    const body = chunk.slice(match[0].length).trimEnd();
    if (body === '') continue;
    out.set(match[1], [...(out.get(match[1]) ?? []), `${body}\n`]);
  }
  return out;
}
