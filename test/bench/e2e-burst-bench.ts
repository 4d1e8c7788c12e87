import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import { createDeployment, listInstances, overcommittedNodes, waitForNodePoolReady } from '../e2e/e2e-support.js';
import { leftBehindLines, podsLeftBehind } from '../e2e/pods-left-behind.js';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';
import type { Bench } from './bench.js';
import { boundCurve, type BindWatch } from './bound-curve.js';
import { latencyCurve, probeLatency, type LatencyProbe } from './loop-probe.js';
import { nodesmithStages, nodesmithTimeline } from './nodesmith-timeline.js';
import { CpuMeter, type CpuTime } from './process-cpu.js';
import { watchStages } from './stage-watch.js';
import { warmBurst } from './warm-burst.js';

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

/**
 * A burst of pods on the real stack (kube-scheduler + extender + nodesmith + kwok + moto): time until every
 * pod is bound and Running, instances launched, their cost, and nodesmith's own peak memory.
 */
export const e2eBurstBench: Bench = {
  name: 'e2e-burst',
  async run({ maxPods, write, flag }): Promise<void> {
    const total = Math.min(maxPods, 1000);
    // nodesmith plans the pods as they are created (its default); `--no-early-planning`: once kube-scheduler marks them Unschedulable.
    const earlyPlanning = flag('--no-early-planning') === undefined;
    write(planningLine(earlyPlanning));
    // From dist/, as the image runs it: under tsx the process carries the transpiler too (about 140 MiB).
    // At info, nodesmith logs each plan and launch: the bench prints them as a timeline beside the bound curve.
    const product = await startProductStack({ childProcess: true, compiled: true, batchIdleMs: 1_000, earlyPlanning, logLevel: 'info' });
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
      const started = Date.now();
      const binds = await watchStages(product.kc, 'default', started);
      // /healthz is served on nodesmith's event loop and does no work: its answer time is that loop's availability.
      probe = probeLatency(`${product.healthUrl}/healthz`, started);
      for (const d of burst(total)) await createDeployment(product, d);
      let boundAt = 0;
      let runningAt = 0;
      while (Date.now() - started < 900_000 && runningAt === 0) {
        const pods = (await product.core.listNamespacedPod({ namespace: 'default' })).items;
        const bound = pods.filter((p) => p.spec?.nodeName).length;
        const running = pods.filter((p) => p.status?.phase === 'Running').length;
        // Created and marked unschedulable tell a slow pod creation (webhooks, controller) from kube-scheduler not trying.
        const unschedulable = pods.filter((p) => p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') === true).length;
        if (bound >= total && boundAt === 0) boundAt = Date.now();
        if (running >= total) runningAt = Date.now();
        write(`  t=${((Date.now() - started) / 1000).toFixed(1)}s created ${String(pods.length)} unschedulable ${String(unschedulable)} bound ${String(bound)}/${String(total)} running ${String(running)}; RSS ${statusMiB(product.childPid(), 'VmRSS').toFixed(0)} MiB, ${String(statusField(product.childPid(), 'Threads'))} threads\n`);
        if (runningAt === 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      write(`load average after it ${load()}\n`);
      write(`CPU seconds over the burst: ${cpuLine(cpu.since(cpu0))}\n`);
      const instances = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
      const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((t) => [t.name, t]));
      const price = instances.reduce((sum, i) => sum + (catalog.get(i.type)?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? 0), 0);
      const types = new Map<string, number>();
      for (const i of instances) types.set(i.type, (types.get(i.type) ?? 0) + 1);
      binds.stop();
      await probe.stop();
      write(curves(binds, probe));
      write(`nodesmith's plans and launches:\n${nodesmithTimeline(join(product.stack.dir, 'nodesmith.log'), started).map((line) => `  ${line}\n`).join('')}`);
      write(nodesmithStages(binds, join(product.stack.dir, 'nodesmith.log'), started));
      write(`pods ${String(total)}: all bound after ${((boundAt - started) / 1000).toFixed(1)}s, all Running after ${((runningAt - started) / 1000).toFixed(1)}s\n`);
      write(`instances ${String(instances.length)}: ${[...types].map(([t, n]) => `${t}×${String(n)}`).join(', ')}\n`);
      write(`cost $${price.toFixed(3)}/hour (on-demand, us-east-1 prices); nodesmith peak RSS ${statusMiB(product.childPid(), 'VmHWM').toFixed(0)} MiB\n`);
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
