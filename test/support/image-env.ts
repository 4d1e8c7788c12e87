import { readFileSync } from 'node:fs';

/**
 * The environment the image's last stage sets with plain `ENV KEY=value` lines (build-argument references and
 * quoting left out: nothing a test can reproduce), so a test that runs nodesmith as a process runs it the way the
 * image does, memory settings included.
 */
export function imageRuntimeEnv(dockerfile: string): Record<string, string> {
  const stages = dockerfile.split(/^FROM\s/m);
  const last = stages.at(-1) ?? '';
  const env: Record<string, string> = {};
  for (const line of last.split('\n')) {
    const match = /^ENV\s+(.+)$/.exec(line.trim());
    if (match === null) continue;
    for (const pair of (match[1] ?? '').split(/\s+/)) {
      const [key, value] = pair.split(/=(.*)/s);
      if (key === undefined || value === undefined || value.includes('$') || /["']/.test(value)) continue;
      env[key] = value;
    }
  }
  return env;
}

export function readImageRuntimeEnv(dockerfilePath: string): Record<string, string> {
  return imageRuntimeEnv(readFileSync(dockerfilePath, 'utf8'));
}

/**
 * The flags the image's exec-form ENTRYPOINT gives node before the script (V8 flags that NODE_OPTIONS does not
 * accept, such as --heap-growing-percent), so a test runs nodesmith with them too.
 */
export function imageNodeFlags(dockerfile: string): string[] {
  const last = dockerfile.split(/^FROM\s/m).at(-1) ?? '';
  const line = last.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('ENTRYPOINT')).at(-1);
  if (line === undefined) return [];
  const parsed: unknown = JSON.parse(line.slice('ENTRYPOINT'.length));
  if (!Array.isArray(parsed) || !parsed.every((a): a is string => typeof a === 'string')) throw new Error(`ENTRYPOINT is not an exec-form list of strings: ${line}`);
  const flags: string[] = [];
  for (const arg of parsed.slice(1)) {
    if (!arg.startsWith('-')) break;
    flags.push(arg);
  }
  return flags;
}

export function readImageNodeFlags(dockerfilePath: string): string[] {
  return imageNodeFlags(readFileSync(dockerfilePath, 'utf8'));
}
