import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { issueCertificate } from '../stack/pki.js';
import type { ExtenderEntry } from '../stack/scheduler-config.js';
import { startStack, type Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import type { Bench } from './bench.js';
import { CpuMeter, type CpuTime } from './process-cpu.js';
import { allVerbs, extenderEntry, startExtender } from './extender-process.js';

const nodeCount = 100;

async function createNodes(core: k8s.CoreV1Api): Promise<void> {
  for (let i = 0; i < nodeCount; i++) {
    const name = `bench-${String(i).padStart(3, '0')}`;
    const capacity = { cpu: '16', memory: '64Gi', pods: '110' };
    await core.createNode({ body: { metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `z${String(i % 3)}` } }, status: { capacity, allocatable: capacity } } });
  }
  await waitFor('bench nodes Ready and untainted', async () => {
    const nodes = (await core.listNode()).items;
    return nodes.filter((n) => (n.spec?.taints ?? []).length === 0 && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === nodeCount ? true : undefined;
  }, { timeoutMs: 120_000 });
}

async function createPods(core: k8s.CoreV1Api, namespace: string, count: number): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const body = (i: number): k8s.V1Pod => ({ metadata: { name: `p-${String(i)}`, labels: { app: 'bench' } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } });
  for (let i = 0; i < count; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => core.createNamespacedPod({ namespace, body: body(i + j) })));
  }
}

interface RunResult { podsPerSecond: number; cpuMsPerPod: Map<string, CpuTime> }

interface RunContext { stack: Stack; core: k8s.CoreV1Api; meter: () => CpuMeter; pin: (pid: number | undefined, cpu: number) => Promise<void> }

const run = promisify(execFile);

/** Restricts a process and all its threads to one CPU (Linux taskset); threads it starts later inherit it. */
async function pinTo(pid: number | undefined, cpu: number): Promise<void> {
  if (pid !== undefined) await run('taskset', ['-a', '-p', '-c', String(cpu), String(pid)]);
}

const controlPlaneCpu = 0;
const extenderCpu = 1;

/** Starts kube-scheduler and times it until every pod in `namespace` is bound; pods/s and CPU per pod. */
async function timeScheduling(ctx: RunContext, namespace: string, count: number, extenders: readonly ExtenderEntry[]): Promise<RunResult> {
  const { stack, core } = ctx;
  const scheduler = await stack.startScheduler(extenders);
  await ctx.pin(scheduler.process.pid, controlPlaneCpu);
  const meter = ctx.meter();
  const cpuStart = meter.reading();
  const started = Date.now();
  // Asks only whether any pod is still unbound (limit 1), so the poll costs the API server the same small
  // amount on both runs instead of listing every pending pod ten times a second.
  await waitFor(`${String(count)} pods bound in ${namespace}`, async () => {
    const unbound = await core.listNamespacedPod({ namespace, fieldSelector: 'spec.nodeName=', limit: 1 });
    return unbound.items.length === 0 ? true : undefined;
  }, { timeoutMs: 600_000, intervalMs: 100 });
  const seconds = (Date.now() - started) / 1000;
  const cpu = meter.since(cpuStart);
  await stack.components.get('kube-scheduler')?.stop();
  return { podsPerSecond: count / seconds, cpuMsPerPod: new Map([...cpu].map(([name, t]) => [name, { user: t.user / count, system: t.system / count }])) };
}

function pidsOf(stack: Stack, extenders: ReadonlyMap<string, ChildProcess>): Map<string, number> {
  const pids = new Map<string, number>();
  for (const [name, component] of stack.components) {
    if (component.process.pid !== undefined && component.process.exitCode === null) pids.set(name, component.process.pid);
  }
  for (const [name, child] of extenders) if (child.pid !== undefined) pids.set(name, child.pid);
  pids.set('bench', process.pid);
  return pids;
}

function cpuColumns(result: RunResult, names: readonly string[]): string {
  return names.map((name) => {
    const t = result.cpuMsPerPod.get(name) ?? { user: 0, system: 0 };
    return `${(t.user + t.system).toFixed(2)} (${t.system.toFixed(2)})`;
  }).join(' | ');
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * kube-scheduler's own throughput without an extender, with nodesmith's, and with the floor extender (see
 * floor-extender.ts), on one stack with 100 kwok nodes. The order is without, nodesmith, floor, floor,
 * nodesmith, without, so that drift in the machine's load and the growing number of bound pods weigh on every
 * configuration alike. Pods are created while no scheduler runs; then kube-scheduler starts and the clock runs
 * until the last pod is bound. Besides pods/s it prints each process's CPU milliseconds per pod: on a 2-core
 * machine CPU is what an extender takes from kube-scheduler and the API server.
 * `--extender-verbs filter,bind` wires only some verbs, to see what each costs; `--extender-tls` serves both
 * extenders over HTTPS (HTTP/2), as kube-scheduler's enableHTTPS; `--pin` puts the control plane (and this
 * process) on CPU 0 and the extenders on CPU 1 in every run, as when the extender runs on a node of its own.
 */
export const schedulerThroughputBench: Bench = {
  name: 'scheduler-throughput',
  async run({ maxPods, write, flag }): Promise<void> {
    const count = Math.min(maxPods, 1000);
    const verbs = new Set((flag('--extender-verbs') ?? allVerbs.join(',')).split(','));
    const unknown = [...verbs].filter((v) => !(allVerbs as readonly string[]).includes(v));
    if (unknown.length > 0) throw new Error(`--extender-verbs: unknown verb(s) ${unknown.join(', ')}; known: ${allVerbs.join(', ')}`);
    const stack = await startStack({ scheduler: false });
    const tls = flag('--extender-tls') === undefined ? undefined : { ...(await issueCertificate(stack.dir, 'extender', { subject: '/CN=extender', caCert: stack.pki.caCert, caKey: stack.pki.caKey, altNames: ['IP:127.0.0.1'] })), ca: stack.pki.caCert };
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(stack.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const children = new Map<string, ChildProcess>();
    try {
      const nodesmith = await startExtender('nodesmith', ['cli/main.ts', 'extender', '--log-level=warn'], { kubeconfig: stack.kubeconfigPath, logDir: stack.dir, tls });
      children.set('nodesmith', nodesmith.child);
      const floor = await startExtender('floor', ['test/bench/floor-extender.ts'], { kubeconfig: stack.kubeconfigPath, logDir: stack.dir, tls });
      children.set('floor', floor.child);
      const pinned = flag('--pin') !== undefined;
      const pin = (pid: number | undefined, cpu: number): Promise<void> => (pinned ? pinTo(pid, cpu) : Promise.resolve());
      for (const component of stack.components.values()) await pin(component.process.pid, controlPlaneCpu);
      await pin(process.pid, controlPlaneCpu);
      for (const child of children.values()) await pin(child.pid, extenderCpu);
      await createNodes(core);
      const configs = new Map<string, readonly ExtenderEntry[]>([
        ['without', []], ['nodesmith', [extenderEntry(nodesmith.url, verbs, tls)]], ['floor', [extenderEntry(floor.url, verbs, tls)]],
      ]);
      const order = ['without', 'nodesmith', 'floor', 'floor', 'nodesmith', 'without'];
      const names = ['kube-apiserver', 'etcd', 'kube-scheduler', 'kwok', 'kube-controller-manager', 'nodesmith', 'floor', 'bench'];
      write(`${String(count)} pods over ${String(nodeCount)} kwok nodes per run, extender verbs ${[...verbs].join(', ')} over ${tls === undefined ? 'HTTP' : 'HTTPS (HTTP/2)'}${pinned ? ', control plane on CPU 0 and extenders on CPU 1' : ''}; CPU columns are ms per pod, total (of which system)\n`);
      write(`| run | extender | pods/s | ${names.join(' | ')} |\n|---|---|---:|${names.map(() => '---:').join('|')}|\n`);
      const rates = new Map<string, number[]>();
      for (const [index, label] of order.entries()) {
        const namespace = `run-${String(index)}`;
        await createPods(core, namespace, count);
        const result = await timeScheduling({ stack, core, pin, meter: () => new CpuMeter(pidsOf(stack, children)) }, namespace, count, configs.get(label) ?? []);
        rates.set(label, [...(rates.get(label) ?? []), result.podsPerSecond]);
        write(`| ${String(index + 1)} | ${label} | ${result.podsPerSecond.toFixed(0)} | ${cpuColumns(result, names)} |\n`);
      }
      const rate = (label: string): number => mean(rates.get(label) ?? []);
      write(`ratio nodesmith/without: ${(rate('nodesmith') / rate('without')).toFixed(2)} (goal ≥ 0.9)\n`);
      write(`ratio floor/without: ${(rate('floor') / rate('without')).toFixed(2)} (the most any extender with these verbs could reach here)\n`);
      write(`ratio nodesmith/floor: ${(rate('nodesmith') / rate('floor')).toFixed(2)}\n`);
    } finally {
      for (const child of children.values()) child.kill('SIGTERM');
      await stack.stop();
    }
  },
};
