import { readFileSync } from 'node:fs';

/** The package version, read from package.json next to the source or the build output. */
export function readVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8'));
      if (typeof parsed === 'object' && parsed !== null && 'name' in parsed && parsed.name === 'nodesmith' && 'version' in parsed && typeof parsed.version === 'string') {
        return parsed.version;
      }
    } catch {
      // try the next location: the source tree and dist/ sit at different depths
    }
  }
  return '0.0.0-unknown';
}
