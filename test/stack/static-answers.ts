import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodesmithCacheRoot } from './cache-root.js';
import { motoVenv } from './moto.js';

/**
 * moto's answers to the EC2 reads that depend on nothing but moto's version, the region and the request: the instance
 * types and their offerings, which moto builds from the tables it ships. Each product stack's nodesmith (and each
 * Karpenter) lists them once per start, and building the 1,395-type answer costs moto about 1.6 CPU-seconds, on a
 * suite that is CPU-bound on the 2-core machine (DECISIONS.md, "The suite is CPU-bound"). The fault proxy keeps
 * each answer moto gave, on disk beside the stack's builds, and gives the same bytes to the next asker: moto's own
 * answer, asked once per version, not one made up.
 */
const cached = new Set(['DescribeInstanceTypes', 'DescribeInstanceTypeOfferings']);

export interface StaticAnswer { readonly status: number; readonly type: string; readonly text: string }

const dir = join(nodesmithCacheRoot(), 'moto-answers');

/** moto's installed version (in the venv moto runs from), or undefined: then nothing is kept. */
function motoVersion(): string | undefined {
  try {
    const lib = join(motoVenv, 'lib');
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

/** What the proxy does with one request: answer it from what moto said before, or keep what moto says now. */
export interface StaticAnswerSlot {
  kept(): StaticAnswer | undefined;
  keep(answer: StaticAnswer): void;
}

/**
 * The slot for this request's answer, or undefined for a request whose answer may change. The key is computed once
 * per request, for the read and the write.
 */
export function staticAnswerSlot(action: string, authorization: string | undefined, body: string): StaticAnswerSlot | undefined {
  if (version === undefined || !cached.has(action)) return undefined;
  const region = signedRegion(authorization);
  if (region === undefined) return undefined;
  const file = join(dir, `${createHash('sha256').update(`${version}\0${region}\0${body}`).digest('hex')}.json`);
  return {
    kept: () => {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as StaticAnswer;
      } catch {
        return undefined;
      }
    },
    keep: (answer) => {
      if (answer.status !== 200) return;
      mkdirSync(dir, { recursive: true });
      // Written aside and renamed: stacks run side by side and one must never read another's half-written answer.
      const partial = `${file}.${String(process.pid)}.tmp`;
      writeFileSync(partial, JSON.stringify(answer));
      renameSync(partial, file);
    },
  };
}
