import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the stack's builds and caches live, outside the repo: the same rule as the build scripts'
 * (`${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}`).
 */
export function nodesmithCacheRoot(): string {
  return process.env['NODESMITH_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'nodesmith');
}
