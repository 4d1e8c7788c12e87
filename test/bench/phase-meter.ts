import { stat } from 'node:fs/promises';
import { userRequests } from './audit-requests.js';
import { histogramBuckets, windowQuantile } from './histogram-quantile.js';
import { processCpuMs } from './process-cpu.js';
import { statusMiB } from './e2e-burst-bench.js';

const extenderDuration = 'nodesmith_extender_request_duration_seconds';

/** What the meter reads of nodesmith at one instant. */
interface Mark { readonly atMs: number; readonly cpuMs: number; readonly filter: Map<number, number>; readonly auditOffset: number }

export interface PhaseFigures {
  readonly seconds: number;
  /** nodesmith's CPU over the phase, in cores (1.0 = one core busy the whole time), and its busiest 5 s. */
  readonly cpuCores: number;
  readonly peakCpuCores: number;
  /** nodesmith's resident memory at its highest during the phase (sampled every second). */
  readonly peakRssMiB: number;
  /** nodesmith's API requests (audit log), per second over the phase and in its busiest 10 s. */
  readonly apiRequests: number;
  readonly apiPerSecond: number;
  readonly apiPeakPerSecond: number;
  readonly apiByKind: readonly (readonly [string, number])[];
  /** The extender's /filter answers during the phase: how many, and the 99th percentile (seconds, estimated within a bucket). */
  readonly filterCalls: number;
  readonly filterP99S: number;
  readonly filterP99AtMostS: number;
}

/**
 * nodesmith's cost over phases of a run: CPU and peak memory of its process, its API requests (from the audit log,
 * as the user it authenticates as) and its extender's /filter latency (from its own histogram).
 */
export class PhaseMeter {
  readonly #pid: () => number | undefined;
  readonly #metricsUrl: string;
  readonly #auditLog: string;
  readonly #user: string;
  #samples: { atMs: number; cpuMs: number; rssMiB: number }[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(pid: () => number | undefined, metricsUrl: string, auditLog: string, user: string) {
    this.#pid = pid;
    this.#metricsUrl = metricsUrl;
    this.#auditLog = auditLog;
    this.#user = user;
    this.#timer = setInterval(() => { this.#sample(); }, 1_000);
  }

  #sample(): void {
    const pid = this.#pid();
    if (pid === undefined) return;
    const cpu = processCpuMs(pid);
    this.#samples.push({ atMs: Date.now(), cpuMs: cpu.user + cpu.system, rssMiB: statusMiB(pid, 'VmRSS') });
  }

  async mark(): Promise<Mark> {
    const pid = this.#pid();
    const cpu = pid === undefined ? { user: 0, system: 0 } : processCpuMs(pid);
    const metrics = await (await fetch(this.#metricsUrl)).text();
    return { atMs: Date.now(), cpuMs: cpu.user + cpu.system, filter: histogramBuckets(metrics, extenderDuration, { verb: 'filter', outcome: 'ok' }), auditOffset: (await stat(this.#auditLog)).size };
  }

  async figures(from: Mark): Promise<PhaseFigures> {
    // The audit log is written in batches every second: let the phase's last requests land.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const to = await this.mark();
    const seconds = (to.atMs - from.atMs) / 1000;
    const inPhase = this.#samples.filter((s) => s.atMs >= from.atMs && s.atMs <= to.atMs);
    let peakCpuCores = 0;
    for (const start of inPhase) {
      const end = inPhase.find((s) => s.atMs - start.atMs >= 5_000);
      if (end === undefined) break;
      peakCpuCores = Math.max(peakCpuCores, (end.cpuMs - start.cpuMs) / (end.atMs - start.atMs));
    }
    const api = await userRequests(this.#auditLog, from.auditOffset, this.#user);
    const p99 = windowQuantile(from.filter, to.filter, 0.99);
    return {
      seconds, cpuCores: (to.cpuMs - from.cpuMs) / (to.atMs - from.atMs), peakCpuCores,
      peakRssMiB: Math.max(0, ...inPhase.map((s) => s.rssMiB)),
      apiRequests: api.total, apiPerSecond: api.total / seconds, apiPeakPerSecond: api.peak / 10, apiByKind: api.byKind,
      filterCalls: p99.count, filterP99S: p99.value, filterP99AtMostS: p99.atMost,
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The figures as lines for a bench's output. */
export function phaseLines(name: string, f: PhaseFigures): string {
  const ms = (s: number): string => (Number.isFinite(s) ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms` : 'n/a');
  const kinds = f.apiByKind.slice(0, 8).map(([k, n]) => `${k} ${String(n)}`).join(', ');
  return `${name} (${f.seconds.toFixed(0)} s): nodesmith CPU ${f.cpuCores.toFixed(2)} cores on average, ${f.peakCpuCores.toFixed(2)} at its busiest 5 s; peak RSS ${f.peakRssMiB.toFixed(0)} MiB\n`
    + `  API requests by nodesmith ${String(f.apiRequests)} (${f.apiPerSecond.toFixed(1)}/s, busiest 10 s ${f.apiPeakPerSecond.toFixed(1)}/s): ${kinds}\n`
    + `  extender /filter ${String(f.filterCalls)} calls, p99 ${ms(f.filterP99S)} (bucket up to ${ms(f.filterP99AtMostS)})\n`;
}
