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
