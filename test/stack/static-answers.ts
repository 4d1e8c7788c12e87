import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * moto's answers to the EC2 reads that depend on nothing but moto's version, the region and the request: the instance
 * types and their offerings, which moto builds from the tables it ships. Each product stack's nodesmith (and each
 * Karpenter) lists them once per start, and building the 1,395-type answer costs moto about 1.6 CPU-seconds, on a
 * suite that is CPU-bound on the 2-core machine (DECISIONS.md, "The suite's order and jobs"). The fault proxy keeps
 * each answer moto gave, on disk beside the stack's builds, and gives the same bytes to the next asker: moto's own
 * answer, asked once per version, not one made up.
 */
const cached = new Set(['DescribeInstanceTypes', 'DescribeInstanceTypeOfferings']);

export interface StaticAnswer { readonly status: number; readonly type: string; readonly text: string }

const repoRoot = resolve(import.meta.dirname, '../..');
const dir = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'nodesmith', 'moto-answers');

/** moto's installed version (the venv test/stack/install-moto.sh makes), or undefined: then nothing is kept. */
function motoVersion(): string | undefined {
  try {
    const lib = join(repoRoot, '.cache/venv/lib');
    for (const python of readdirSync(lib)) {
      const info = readdirSync(join(lib, python, 'site-packages')).find((f) => /^moto-[\d.]+\.dist-info$/.test(f));
      if (info !== undefined) return info.slice('moto-'.length, -'.dist-info'.length);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

const version = motoVersion();

/** The region a SigV4 request was signed for: `Credential=<key>/<date>/<region>/<service>/aws4_request`. */
function signedRegion(authorization: string | undefined): string | undefined {
  return /Credential=[^/]+\/\d+\/([^/]+)\//.exec(authorization ?? '')?.[1];
}

/** The file an answer is kept in, or undefined for a request whose answer may change. */
function keyOf(action: string, authorization: string | undefined, body: string): string | undefined {
  const region = signedRegion(authorization);
  if (version === undefined || region === undefined || !cached.has(action)) return undefined;
  return join(dir, `${createHash('sha256').update(`${version}\0${region}\0${body}`).digest('hex')}.json`);
}

/** The kept answer to this request, if moto gave one before. */
export function keptAnswer(action: string, authorization: string | undefined, body: string): StaticAnswer | undefined {
  const file = keyOf(action, authorization, body);
  if (file === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StaticAnswer;
  } catch {
    return undefined;
  }
}

/** Keeps moto's successful answer to a request whose answer cannot change. */
export function keepAnswer(action: string, authorization: string | undefined, body: string, answer: StaticAnswer): void {
  const file = keyOf(action, authorization, body);
  if (file === undefined || answer.status !== 200) return;
  mkdirSync(dir, { recursive: true });
  // Written aside and renamed: stacks run side by side and one must never read another's half-written answer.
  const partial = `${file}.${String(process.pid)}.tmp`;
  writeFileSync(partial, JSON.stringify(answer));
  renameSync(partial, file);
}
