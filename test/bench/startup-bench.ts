// CLI start-up benchmark: whole-process wall time of the built CLI (dist/cli/main.js), as the median of N
// alternating runs, each reported as a ratio to a bare `node -e 0` measured in the same rounds, plus the peak
// RSS of `validate`. Run `npm run build` first (the bench runs the built CLI, as a user would).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Bench } from './bench.js';
import { startupManifests } from './startup-manifests.js';

const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
/**
 * Preloaded with `node --import`: on exit, writes the process's peak resident set (VmHWM, KiB) to the file
 * named by NODESMITH_PEAK_RSS_FILE. A data: URL of plain JavaScript, so the measured process needs no loader.
 */
const peakRssReporter = `data:text/javascript,${encodeURIComponent(`
import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  const match = /VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  writeFileSync(process.env.NODESMITH_PEAK_RSS_FILE, match ? match[1] : 'NaN');
});`)}`;

interface Case { readonly name: string; readonly args: readonly string[]; readonly goal?: number }

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** One whole process, timed from spawn to exit; throws on an unexpected exit code so a broken case is not timed. */
function timeRun(args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(result.status)}: ${result.stderr.slice(0, 500)}`);
  return ms;
}

/** Peak resident memory (VmHWM) of one run, reported by a preloaded module on exit. */
function peakRssMiB(args: readonly string[], dir: string): number {
  const out = join(dir, 'peak-rss.txt');
  spawnSync(process.execPath, ['--import', peakRssReporter, ...args], { env: { ...process.env, NODESMITH_PEAK_RSS_FILE: out } });
  return Number(readFileSync(out, 'utf8')) / 1024;
}

export const startupBench: Bench = {
  name: 'startup',
  run({ write, flag }): void {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    const rounds = Number(flag('--startup-runs') ?? 5);
    const dir = mkdtempSync(join(tmpdir(), 'nodesmith-startup-'));
    const files = startupManifests();
    writeFileSync(join(dir, 'nodepool.yaml'), files.nodePool);
    writeFileSync(join(dir, 'plan.yaml'), files.plan);
    const baseline: Case = { name: 'node -e 0', args: ['-e', '0'] };
    const cases: Case[] = [
      { name: '--version', args: [cli, '--version'], goal: 2 },
      { name: '--help', args: [cli, '--help'], goal: 2 },
      { name: 'validate (1 NodePool)', args: [cli, 'validate', '-f', join(dir, 'nodepool.yaml')], goal: 2 },
      { name: 'plan (50 pods)', args: [cli, 'plan', '-f', join(dir, 'plan.yaml')], goal: 6 },
    ];
    const times = new Map<string, number[]>([baseline, ...cases].map((c) => [c.name, []]));
    // Alternating rounds, so a burst of load from other processes falls on every case alike.
    for (let round = 0; round < rounds; round++) {
      for (const c of [baseline, ...cases]) times.get(c.name)?.push(timeRun(c.args));
    }
    const base = median(times.get(baseline.name) ?? []);
    write(`median of ${String(rounds)} runs; ${baseline.name}: ${base.toFixed(0)} ms\n`);
    for (const c of cases) {
      const ms = median(times.get(c.name) ?? []);
      const ratio = ms / base;
      write(`${c.name.padEnd(24)} ${ms.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}× node -e 0  (goal ≤ ${String(c.goal)}×${ratio <= (c.goal ?? Infinity) ? '' : ', MISSED'})\n`);
    }
    const rss = peakRssMiB([cli, 'validate', '-f', join(dir, 'nodepool.yaml')], dir);
    write(`validate peak RSS: ${rss.toFixed(0)} MiB (goal < 100 MiB${rss < 100 ? '' : ', MISSED'})\n`);
  },
};
