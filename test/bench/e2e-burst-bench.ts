import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createDeployment, overcommittedNodes, waitForNodePoolReady } from '../e2e/e2e-support.js';
import { leftBehindLines, podsLeftBehind } from '../e2e/pods-left-behind.js';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';
import type { Bench } from './bench.js';
import { boundCurve, type BindWatch } from './bound-curve.js';
import { latencyCurve, probeLatency, type LatencyProbe } from './loop-probe.js';
import { nodesmithStages, nodesmithTimeline } from './nodesmith-timeline.js';
import { onDemandFleet } from './on-demand-fleet.js';
import { CpuMeter, type CpuTime } from './process-cpu.js';
import { stageTimes, watchStages, type PodTrace, type StageWatch } from './stage-watch.js';
import { warmBurst } from './warm-burst.js';
import { writesByUser } from './audit-requests.js';
import { byVerbAndResource, requestsBetween, requestTotals, writesPerPodLine } from './api-request-totals.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';
import { refusalReasons } from './refusal-reasons.js';

/** A number from /proc/PID/status (VmHWM: peak resident, kB; VmRSS: resident now, kB; Threads). */
function statusField(pid: number | undefined, field: 'VmHWM' | 'VmRSS' | 'Threads'): number {
  if (pid === undefined) return Number.NaN;
  const line = readFileSync(`/proc/${String(pid)}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN);
}

export const statusMiB = (pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number => statusField(pid, field) / 1024;

/** What nodesmith's own process metrics say of its memory now: V8 heap in use and reserved, and outside it. */
async function heapFigures(healthUrl: string): Promise<string> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const mib = (pattern: RegExp): string => {
    const sum = [...text.matchAll(pattern)].reduce((s, m) => s + Number(m[1]), 0);
    return (sum / 1_048_576).toFixed(0);
  };
  return `V8 heap ${mib(/^\w*nodejs_heap_size_used_bytes (\S+)$/gm)}/${mib(/^\w*nodejs_heap_size_total_bytes (\S+)$/gm)} MiB (used/reserved), external ${mib(/^\w*nodejs_external_memory_bytes (\S+)$/gm)} MiB`;
}

/** The bound pods and nodesmith's answer time, both every 2 s of the burst. */
function curves(binds: BindWatch, probe: LatencyProbe): string {
  const interrupted = binds.interruptions.length === 0 ? '' : ` (watch interrupted: ${binds.interruptions.join('; ')})`;
  return `created pods every 2 s: ${boundCurve([...binds.createdAtMs.values()])}\nbound pods every 2 s: ${boundCurve([...binds.boundAtMs.values()])}${interrupted}\nnodesmith /healthz slowest answer every 2 s: ${latencyCurve(probe.samples)}\n`;
}

/** nodesmith's FailedProvisioning Events of the burst, by message: a pass that found no node for a pod says why. */
async function failedProvisioning(product: ProductStack): Promise<string> {
  const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=FailedProvisioning' })).items;
  const messages = new Map<string, number>();
  for (const e of events) messages.set(e.message ?? '', (messages.get(e.message ?? '') ?? 0) + (e.count ?? 1));
  return `FailedProvisioning events: ${String(events.length)}${[...messages].map(([m, n]) => `\n  ${String(n)}× ${m}`).join('')}`;
}

const planningLine = (early: boolean): string => `planning: ${early ? 'early (--early-planning-schedulers default-scheduler, the default)' : 'once kube-scheduler marks pods Unschedulable (--no-early-planning)'}\n`;

/** The stack's processes (API server, etcd, kube-scheduler, kwok, …) and nodesmith's. */
function stackCpu(product: ProductStack): CpuMeter {
  const pids = [...product.stack.components].flatMap(([name, c]) => (c.process.pid === undefined ? [] : [[name, c.process.pid] as const]));
  const nodesmith = product.childPid();
  return new CpuMeter(new Map(nodesmith === undefined ? pids : [...pids, ['nodesmith', nodesmith] as const]));
}

const cpuLine = (used: ReadonlyMap<string, CpuTime>): string => [...used].map(([name, t]) => `${name} ${((t.user + t.system) / 1000).toFixed(1)}`).join(', ');

export interface BurstDeployment { readonly name: string; readonly replicas: number; readonly cpu: string; readonly memory: string }

/** Three Deployments of mixed sizes, like a real burst: mostly small pods, some large. */
export function burst(total: number): BurstDeployment[] {
  return [
    { name: 'small', replicas: Math.round(total * 0.5), cpu: '250m', memory: '512Mi' },
    { name: 'medium', replicas: Math.round(total * 0.3), cpu: '500m', memory: '1Gi' },
    { name: 'large', replicas: total - Math.round(total * 0.5) - Math.round(total * 0.3), cpu: '1', memory: '2Gi' },
  ];
}

/** The burst's writes by client, from the audit log (its batches are flushed each second). */
async function auditedWrites(path: string, from: number): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rows = await writesByUser(path, from);
  return `API writes by client over the burst (audit log):\n${rows.slice(0, 25).map(([key, n]) => `  ${String(n).padStart(6)} ${key}\n`).join('')}`;
}

/**
 * Prints the burst's progress every 2 s until every pod is Running (or the deadline), and returns when the last pod
 * was bound and Running (epoch ms; undefined if not all were). Counted from the watch, not from lists: a list of
 * every pod each 2 s is load on the API server that the second burst (the floor) does not carry, and its answer,
 * seconds late on a busy machine, timed the last bind late.
 */
async function followBurst(binds: StageWatch, { total, started, pid }: { total: number; started: number; pid: number | undefined }, write: (text: string) => void): Promise<{ boundAt: number | undefined; runningAt: number | undefined }> {
  const seen = (pick: (p: PodTrace) => number | undefined): number[] => stageTimes(binds, pick);
  const deadline = started + Math.max(900_000, total * 90);
  let printed = 0;
  for (;;) {
    const bound = seen((p) => p.boundMs).length;
    const running = seen((p) => p.runningMs).length;
    const done = running >= total;
    if (done || Date.now() - printed >= 2_000) {
      printed = Date.now();
      write(`  t=${((Date.now() - started) / 1000).toFixed(1)}s created ${String(binds.pods.size)} marked unschedulable ${String(seen((p) => p.unschedulableMs).length)} bound ${String(bound)}/${String(total)} running ${String(running)}; RSS ${statusMiB(pid, 'VmRSS').toFixed(0)} MiB, ${String(statusField(pid, 'Threads'))} threads\n`);
    }
    if (done || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const lastOf = (at: number[]): number | undefined => (at.length >= total ? Math.max(...at) : undefined);
  return { boundAt: lastOf(seen((p) => p.boundMs)), runningAt: lastOf(seen((p) => p.runningMs)) };
}

/**
 * A burst of pods on the real stack (kube-scheduler + extender + nodesmith + kwok + moto): time until every
 * pod is bound and Running, instances launched, their cost, and nodesmith's own peak memory.
 */
export const e2eBurstBench: Bench = {
  name: 'e2e-burst',
  async run({ maxPods, write, flag }): Promise<void> {
    // --burst-pods sets the burst's size (10,000 for issue 37's figure); else --max-pods, capped at 1,000.
    const total = Number(flag('--burst-pods') ?? Math.min(maxPods, 1000));
    if (!Number.isInteger(total) || total < 1) throw new Error(`--burst-pods must be a whole number of pods, got ${String(flag('--burst-pods'))}`);
    // nodesmith plans the pods as they are created (its default); `--no-early-planning`: once kube-scheduler marks them Unschedulable.
    const earlyPlanning = flag('--no-early-planning') === undefined;
    write(planningLine(earlyPlanning));
    // From dist/, as the image runs it: under tsx the process carries the transpiler too (about 140 MiB).
    // At info, nodesmith logs each plan and launch: the bench prints them as a timeline beside the bound curve.
    // `--audit`: the API server keeps an audit log, and the bench names the client of each write (the log costs the
    // API server time, so the figures of such a run are not the ones to compare).
    const audit = flag('--audit') !== undefined;
    const product = await startProductStack({ childProcess: true, compiled: true, batch: defaultBatchWindows, earlyPlanning, logLevel: 'info', ...(audit ? { audit, identity: 'nodesmith' } : {}) });
    let probe: LatencyProbe | undefined;
    try {
      await product.apply(product.nodePoolYaml('burst', '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }\n        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }'));
      // A burst lands on a NodePool that exists already: the clock starts once the pool is Ready, not at its apply.
      write(`NodePool Ready ${(await waitForNodePoolReady(product, 'burst')).toFixed(1)} s after its apply\n`);
      write(`nodesmith RSS before the burst ${statusMiB(product.childPid(), 'VmRSS').toFixed(0)} MiB (peak so far ${statusMiB(product.childPid(), 'VmHWM').toFixed(0)} MiB)\n`);
      const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
      write(`load average before the burst ${load()}\n`);
      // Each process's CPU over the burst: on 2 shared cores a stage that waits on a busy process shows here.
      const cpu = stackCpu(product);
      const cpu0 = cpu.reading();
      const api0 = await requestTotals(product, byVerbAndResource);
      const auditFrom = audit ? (await stat(join(product.stack.dir, 'audit.log'))).size : 0;
      const started = Date.now();
      const binds = await watchStages(product.kc, 'default', started);
      // /healthz is served on nodesmith's event loop and does no work: its answer time is that loop's availability.
      probe = probeLatency(`${product.healthUrl}/healthz`, started);
      for (const d of burst(total)) await createDeployment(product, d);
      const { boundAt, runningAt } = await followBurst(binds, { total, started, pid: product.childPid() }, write);
      write(`load average after it ${load()}\n`);
      write(`CPU seconds over the burst: ${cpuLine(cpu.since(cpu0))}\n`);
      write(writesPerPodLine('the burst, until all Running', requestsBetween(api0, await requestTotals(product, byVerbAndResource)), total));
      if (audit) write(await auditedWrites(join(product.stack.dir, 'audit.log'), auditFrom));
      const fleet = await onDemandFleet(product);
      binds.stop();
      await probe.stop();
      write(curves(binds, probe));
      write(`nodesmith's plans and launches:\n${nodesmithTimeline(join(product.stack.dir, 'nodesmith.log'), started).map((line) => `  ${line}\n`).join('')}`);
      write(nodesmithStages(binds, join(product.stack.dir, 'nodesmith.log'), started));
      const refusals = refusalReasons(binds);
      if (refusals.length > 0) write(`why kube-scheduler marked pods Unschedulable (its last message for each):\n${refusals.map((r) => `  ${r}\n`).join('')}`);
      const after = (at: number | undefined): string => (at === undefined ? 'never (timed out)' : `${((at - started) / 1000).toFixed(1)}s`);
      write(`pods ${String(total)}: all bound after ${after(boundAt)}, all Running after ${after(runningAt)}\n`);
      write(`instances ${String(fleet.instances)}: ${fleet.types}\n`);
      write(`cost $${fleet.price.toFixed(3)}/hour (on-demand, us-east-1 prices); nodesmith peak RSS ${statusMiB(product.childPid(), 'VmHWM').toFixed(0)} MiB\n`);
      write(`nodesmith memory now: ${await heapFigures(product.healthUrl)}\n`);
      const overcommitted = await overcommittedNodes(product);
      write(`nodes holding more than their allocatable: ${String(overcommitted.length)}${overcommitted.length === 0 ? '' : ` (${overcommitted.join('; ')})`}\n`);
      write(leftBehindLines(await podsLeftBehind(product)));
      write(`${await failedProvisioning(product)}\n`);
      await warmBurst(product, 'burst', burst(total), write);
    } finally {
      // A probe left running would keep the bench's process alive after the stack is gone.
      await probe?.stop();
      await product.stop();
    }
  },
};
