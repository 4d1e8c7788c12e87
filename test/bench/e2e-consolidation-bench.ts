// Scale-down on the real stack (kube-scheduler + extender + nodesmith + kwok + moto): a burst of pods, then every
// Deployment scaled to 30%, then consolidation until the dry run finds nothing more to do. Prints nodes, $/hour and
// cost ÷ the valid lower bound at each stage, how long it took, pods disrupted, the longest a pod waited Pending,
// overcommitted nodes, and launches no consolidation command asked for.
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { disruptionCommand } from '../../cli/disruption-command.js';
import type { ConsolidationDryRun } from '../../provisioner/disruption/consolidation-dry-run.js';
import { projectPod } from '../../provisioner/kube/projection.js';
import { sampleValue } from '../e2e/consolidation-support.js';
import { listClaims, scaleDeployment } from '../e2e/disruption-support.js';
import { createDeployment, listInstances, overcommittedNodes, waitForNodePoolReady } from '../e2e/e2e-support.js';
import { leftBehindLines, podsLeftBehind } from '../e2e/pods-left-behind.js';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';
import { toWire } from '../support/wire.js';
import { assignmentBound, nodeOffers, podClasses } from './assignment-bound.js';
import type { Bench } from './bench.js';
import { boundCurve, watchBinds } from './bound-curve.js';
import { consolidationMoves, movesLines } from './consolidation-moves.js';
import { burst, statusMiB, type BurstDeployment } from './e2e-burst-bench.js';
import { loadLpSolver } from './lp-solver.js';
import { poolTypes } from './scale-down-churn.js';
import { PhaseMeter, phaseLines } from './phase-meter.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';

const categories = ['c', 'm', 'r'];
const identity = 'nodesmith-bench';

/** The pool's requirements; `maxCpu` (--max-instance-cpu) keeps nodes small, so 10,000 pods need 1,000+ of them. */
function poolRequirements(maxCpu: number | undefined): string {
  const small = maxCpu === undefined ? '' : `\n        - { key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["${String(maxCpu + 1)}"] }`;
  return `\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }\n        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [${categories.join(', ')}] }${small}`;
}
const disruption = '  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 15s';

interface Stage { readonly name: string; readonly atS: number; readonly nodes: number; readonly price: number; readonly bound: number; readonly types: string }

interface Pricing { readonly bound: (pods: k8s.V1Pod[]) => number; readonly maxCpu: number | undefined }

async function stage(product: ProductStack, name: string, startedMs: number, { bound, maxCpu }: Pricing): Promise<Stage> {
  const instances = (await listInstances(product)).filter((i) => i.state === 'running' || i.state === 'pending');
  const catalog = new Map(poolTypes(maxCpu).map((t) => [t.name, t]));
  const price = instances.reduce((sum, i) => sum + (catalog.get(i.type)?.offerings[0]?.price ?? 0), 0);
  const types = new Map<string, number>();
  for (const i of instances) types.set(i.type, (types.get(i.type) ?? 0) + 1);
  const pods = (await product.core.listNamespacedPod({ namespace: 'default' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  return { name, atS: (Date.now() - startedMs) / 1000, nodes: instances.length, price, bound: bound(pods), types: [...types].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t}×${String(n)}`).join(', ') };
}

async function runningPods(product: ProductStack): Promise<{ running: number; notRunning: k8s.V1Pod[]; names: string[] }> {
  // From the API server's watch cache (resourceVersion 0), not etcd: at 10,000 pods a quorum list every few seconds
  // is load the bench itself adds to what it measures.
  const pods = (await product.core.listNamespacedPod({ namespace: 'default', resourceVersion: '0' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const running = pods.filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName);
  return { running: running.length, notRunning: pods.filter((p) => !running.includes(p)), names: pods.map((p) => p.metadata?.name ?? '') };
}

/** Waits for `count` pods Running and, after a scale-down, for the ReplicaSets to have deleted the rest. */
async function waitRunning(product: ProductStack, count: number, write: (s: string) => void): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { running, notRunning } = await runningPods(product);
    if (running >= count && running + notRunning.length <= count) return;
    if (Date.now() - started > 1_800_000) throw new Error(`only ${String(running)}/${String(count)} pods Running after 30 minutes`);
    write(`  t=${((Date.now() - started) / 1000).toFixed(0)}s running ${String(running)}/${String(count)}\n`);
    // Every 3 s up to 1,000 pods, then less often: each listing costs the API server in proportion to the pods.
    await new Promise((resolve) => setTimeout(resolve, Math.max(3_000, count)));
  }
}

/** The dry run as if consolidateAfter had passed for every node: what consolidation would still do. */
async function wouldStillConsolidate(product: ProductStack, write: (s: string) => void): Promise<number> {
  let out = '';
  let err = '';
  const future = new Date(Date.now() + 5 * 60_000).toISOString();
  const code = await disruptionCommand.run(['--kubeconfig', product.stack.kubeconfigPath, '--output', 'json', '--now', future, '--region', product.moto.region], {
    stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined), env: {},
  });
  if (code !== 0) throw new Error(`nodesmith disruption exited ${String(code)}: ${err}`);
  const report = JSON.parse(out) as ConsolidationDryRun;
  const reasons = new Map<string, number>();
  for (const n of report.nodes) if (n.reason !== null && !n.reason.startsWith('would ')) reasons.set(n.reason.slice(0, 90), (reasons.get(n.reason.slice(0, 90)) ?? 0) + 1);
  write(`    dry run: ${String(report.commands.length)} commands; ${[...reasons].map(([r, n]) => `${String(n)}× ${r}`).join('; ')}\n`);
  // A command the controller started between the settled check and the listing holds nodes back: not a fixed point.
  const inFlight = [...reasons.keys()].some((r) => /being disrupted|is deleting|deleting or marked/.test(r));
  return inFlight ? Number.NaN : report.commands.length;
}

/** Nothing in flight: no nodeclaim deleting, no node tainted for disruption, every pod Running. */
async function settled(product: ProductStack): Promise<boolean> {
  if ((await listClaims(product)).some((c) => c.deleting)) return false;
  const nodes = (await product.core.listNode()).items;
  if (nodes.some((n) => (n.spec?.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted'))) return false;
  return (await runningPods(product)).notRunning.length === 0;
}

interface Watch {
  longestPendingS: number; lastChangeMs: number; overcommitted: readonly string[]; fixedPoint: boolean;
  /** The worst sample's DaemonSet pods without room and pods Unschedulable for over 2 minutes. */
  daemonsWithoutRoom: readonly string[]; unschedulable: readonly string[];
}

/** Keeps the worst sample's overcommitted nodes and pods left behind, by name, so a run that finds any says where to look. */
async function noteWorst(product: ProductStack, watch: Watch, write: (s: string) => void): Promise<void> {
  const overcommitted = await overcommittedNodes(product);
  if (overcommitted.length > watch.overcommitted.length) watch.overcommitted = overcommitted;
  if (overcommitted.length > 0) write(`    over allocatable: ${overcommitted.slice(0, 5).join('; ')}\n`);
  const left = await podsLeftBehind(product);
  if (left.daemonsWithoutRoom.length > watch.daemonsWithoutRoom.length) watch.daemonsWithoutRoom = left.daemonsWithoutRoom;
  if (left.unschedulable.length > watch.unschedulable.length) watch.unschedulable = left.unschedulable;
  if (left.daemonsWithoutRoom.length + left.unschedulable.length > 0) write(leftBehindLines(left, { indent: '    ' }));
}

/** Polls until the cluster is settled and the dry run has no command left (or `limitMs`), tracking what the figures need. */
async function consolidate(product: ProductStack, write: (s: string) => void, startedMs: number, limitMs: number): Promise<Watch> {
  const pendingSince = new Map<string, number>();
  const watch: Watch = { longestPendingS: 0, lastChangeMs: startedMs, overcommitted: [], fixedPoint: false, daemonsWithoutRoom: [], unschedulable: [] };
  let lastNodes = -1;
  while (Date.now() - startedMs < limitMs) {
    const now = Date.now();
    for (const p of (await runningPods(product)).notRunning) {
      const key = p.metadata?.uid ?? '';
      pendingSince.set(key, pendingSince.get(key) ?? now);
      watch.longestPendingS = Math.max(watch.longestPendingS, (now - (pendingSince.get(key) ?? now)) / 1000);
    }
    const claims = (await listClaims(product)).filter((c) => !c.deleting).length;
    if (claims !== lastNodes) watch.lastChangeMs = now;
    lastNodes = claims;
    await noteWorst(product, watch, write);
    write(`  t=${((now - startedMs) / 1000).toFixed(0)}s nodeclaims ${String(claims)}\n`);
    if (await settled(product) && await wouldStillConsolidate(product, write) === 0) {
      watch.fixedPoint = true;
      return watch;
    }
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  write(`  (stopped after ${String(limitMs / 60_000)} minutes)\n`);
  return watch;
}

async function unplannedLaunches(product: ProductStack, before: ReadonlySet<string>): Promise<{ launched: number; unplanned: number }> {
  const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=DisruptionLaunching' })).items;
  const replacements = new Set(events.map((e) => /replacement nodeclaim (\S+)/.exec(e.message ?? '')?.[1] ?? ''));
  const launched = (await listClaims(product)).map((c) => c.name).filter((n) => !before.has(n));
  return { launched: launched.length, unplanned: launched.filter((n) => !replacements.has(n)).length };
}

function row(s: Stage): string {
  return `| ${s.name} | ${s.atS.toFixed(0)} | ${String(s.nodes)} | ${s.price.toFixed(3)} | ${s.bound.toFixed(3)} | ${(s.price / s.bound).toFixed(3)} | ${s.types} |`;
}

function table(stages: readonly Stage[]): string {
  return ['| stage | t (s) | instances | $/hour | valid bound $/hour | cost ÷ bound | types |', '|---|---:|---:|---:|---:|---:|---|', ...stages.map(row)].join('\n');
}

/** The burst until every pod is Running, with when the last was bound and the curve of bound pods. */
async function timedBurst(product: ProductStack, deployments: readonly BurstDeployment[], total: number, write: (s: string) => void): Promise<void> {
  const started = Date.now();
  const binds = await watchBinds(product.kc, 'default', started);
  try {
    for (const d of deployments) await createDeployment(product, d);
    await waitRunning(product, total, write);
    write(`pods ${String(total)}: all bound after ${(Math.max(...binds.boundAtMs.values()) / 1000).toFixed(1)} s, all Running after ${((Date.now() - started) / 1000).toFixed(1)} s (polled every ${String(Math.max(3, total / 1000))} s)\n`);
  } finally {
    // Also when the burst never finished: how far it got is the figure then.
    binds.stop();
    write(`bound pods every 10 s: ${boundCurve([...binds.boundAtMs.values()], 10)}\n`);
  }
}

export const e2eConsolidationBench: Bench = {
  name: 'e2e-consolidation',
  async run({ maxPods, write, flag }): Promise<void> {
    const total = Math.min(maxPods, Number(flag('--burst-pods') ?? 600));
    const keep = Number(flag('--keep') ?? 0.3);
    const maxCpu = flag('--max-instance-cpu') === undefined ? undefined : Number(flag('--max-instance-cpu'));
    const highs = await loadLpSolver();
    const offers = nodeOffers(poolTypes(maxCpu));
    const pricing: Pricing = { maxCpu, bound: (pods) => assignmentBound(highs, offers, podClasses(pods.map((p) => projectPod(toWire(p))))).cost };
    // From dist/ in its own process, as the image runs it, so its memory and CPU are its own; its own user, so the
    // audit log tells its requests from everyone else's.
    // Pods are planned as they are created (the default); `--no-early-planning`: once kube-scheduler has marked them Unschedulable.
    const earlyPlanning = flag('--no-early-planning') === undefined;
    write(`planning: ${earlyPlanning ? 'early (the default)' : 'once kube-scheduler marks pods Unschedulable (--no-early-planning)'}; nodes of at most ${maxCpu === undefined ? 'any number of' : String(maxCpu)} vCPU\n`);
    const product = await startProductStack({ childProcess: true, compiled: true, audit: true, identity, batch: defaultBatchWindows, earlyPlanning, consolidation: { spotToSpot: false } });
    const meter = new PhaseMeter(() => product.childPid(), `${product.healthUrl}/metrics`, join(product.stack.dir, 'audit.log'), identity);
    try {
      await product.apply(product.nodePoolYaml('burst', poolRequirements(maxCpu), disruption));
      write(`NodePool Ready ${(await waitForNodePoolReady(product, 'burst')).toFixed(1)} s after its apply\n`);
      const started = Date.now();
      const priced = async (name: string): Promise<Stage> => {
        const done = await stage(product, name, started, pricing);
        // Each row as soon as it is known: at 10,000 pods a run may be stopped before the table at the end.
        write(`  stage ${row(done)}\n`);
        return done;
      };
      const deployments = burst(total);
      const burstMark = await meter.mark();
      await timedBurst(product, deployments, total, write).catch(async (error: unknown) => {
        write(phaseLines('burst (did not finish)', await meter.figures(burstMark)));
        throw error;
      });
      const burstFigures = await meter.figures(burstMark);
      const stages = [await priced(`burst: ${String(total)} pods Running`)];
      const before = new Set((await listClaims(product)).map((c) => c.name));
      const scaledAt = Date.now();
      const scaleMark = await meter.mark();
      const kept = deployments.map((d) => ({ ...d, replicas: Math.round(d.replicas * keep) }));
      for (const d of kept) await scaleDeployment(product, d.name, d.replicas);
      const remaining = kept.reduce((s, d) => s + d.replicas, 0);
      await waitRunning(product, remaining, write);
      const podsBefore = new Set((await runningPods(product)).names);
      stages.push(await priced(`scaled to ${String(Math.round(keep * 100))}%: ${String(remaining)} pods`));
      const minutes = Number(flag('--consolidate-minutes') ?? 20);
      const watch = await consolidate(product, write, scaledAt, minutes * 60_000);
      stages.push(await priced(watch.fixedPoint ? 'consolidated (dry run finds nothing more)' : `consolidating, stopped by the ${String(minutes)}-minute cap`));
      const consolidationFigures = await meter.figures(scaleMark);
      const events = (await product.core.listNamespacedEvent({ namespace: 'default' })).items;
      const disrupted = events.filter((e) => e.reason === 'Disrupted').reduce((n, e) => n + (e.count ?? 1), 0);
      const launches = await unplannedLaunches(product, before);
      write(`\n${table(stages)}\n\n`);
      write(`last nodeclaim change ${((watch.lastChangeMs - scaledAt) / 1000).toFixed(0)} s after the scale-down; ${watch.fixedPoint ? 'fixed point seen' : 'no fixed point; stopped'} ${(((Date.now() - scaledAt) / 1000)).toFixed(0)} s after it\n`);
      write(`pods disrupted (Disrupted Events) ${String(disrupted)}; longest a pod was not Running during consolidation ${watch.longestPendingS.toFixed(0)} s; most overcommitted nodes at a sample ${String(watch.overcommitted.length)}${watch.overcommitted.length === 0 ? '' : ` (${watch.overcommitted.slice(0, 5).join('; ')})`}\n`);
      write(leftBehindLines(watch, { qualifier: ', most at a sample' }));
      write(movesLines(consolidationMoves(events, podsBefore), scaledAt));
      const counted = sampleValue(await (await fetch(`${product.healthUrl}/metrics`)).text(), 'nodesmith_disruption_unplanned_launches_total', {});
      write(`nodeclaims launched after the scale-down ${String(launches.launched)}, of which no command's replacement ${String(launches.unplanned)}; nodesmith_disruption_unplanned_launches_total ${String(counted)}\n`);
      write(phaseLines('burst', burstFigures));
      write(phaseLines('scale-down and consolidation', consolidationFigures));
      write(`nodesmith peak RSS over the run ${statusMiB(product.childPid(), 'VmHWM').toFixed(0)} MiB\n`);
    } finally {
      meter.stop();
      await product.stop();
    }
  },
};
