// One run of the side-by-side bench: a fresh stack (API server, kube-scheduler, kwok, moto, the kubelet stand-in),
// one controller (the real Karpenter or nodesmith), the burst, the scale-down, and the figures of each.
import * as k8s from '@kubernetes/client-node';
import type { LegacyHighs } from 'highs';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { projectPod } from '../../provisioner/kube/projection.js';
import { deployment } from '../e2e/e2e-support.js';
import { clusterName, nodePoolYaml, startProductOn } from '../e2e/product-stack.js';
import { startKarpenterWorld, type KarpenterWorld } from '../stack/karpenter-stack.js';
import { toWire } from '../support/wire.js';
import { assignmentBound, nodeOffers, podClasses } from './assignment-bound.js';
import { join } from 'node:path';
import { consolidationMoves, movesLines } from './consolidation-moves.js';
import { boundCurve } from './bound-curve.js';
import { bootSeconds, claimStates, clusterInstances, livePods, watchPodArrivals } from './cluster-watch.js';
import { statusMiB } from './e2e-burst-bench.js';
import { nodesmithStagePaths } from './nodesmith-timeline.js';
import { writeStagePaths } from './stage-paths-file.js';
import { processCpuMs } from './process-cpu.js';
import { karpenterColumns, karpenterPaths, nodesmithColumns, timelineReport } from './stage-paths.js';
import { watchStages, type StageWatch } from './stage-watch.js';
import { fleetLines, poolCategories, poolMinGeneration, poolTable, priceFleet, racePrices, type Fleet } from './race-prices.js';
import { afterDaemons, daemonOverhead, type RaceWorkload } from './race-workloads.js';
import type { Ec2Prices } from '../stack/ec2-allocation.js';
import { RaceInvariants } from './race-invariants.js';
import type { BatchWindows } from '../../provisioner/provisioning/batcher.js';
import { floorNodes, type FloorFigures, type FloorNode } from './stack-floor.js';
import { sampler, untilRunning, type Sampler } from './race-follow.js';

export type Controller = 'karpenter' | 'nodesmith';

/** The pool both controllers get: c/m/r, generation > 2, in the workload's capacity types. */
const poolYaml = (world: KarpenterWorld, workload: RaceWorkload): string => nodePoolYaml('default', world.vpc, {
  extraRequirements: `
        - { key: karpenter.sh/capacity-type, operator: In, values: [${workload.capacityTypes.join(', ')}] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [${poolCategories.join(', ')}] }
        - { key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["${String(poolMinGeneration)}"] }`,
  extraSpec: '  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 15s',
});

export interface RunOptions {
  readonly total: number;
  readonly workload: RaceWorkload;
  /** nodesmith's batch windows (default: `nodesmith run`'s); `--no-batch-steps` plans only when a batch closes. */
  readonly batch: BatchWindows;
  /** nodesmith's `--pod-deletion-cost`: by-node (true, the default) or none (`--no-pod-deletion-cost`). */
  readonly scaleInRank: boolean;
  /** Share of each Deployment's replicas kept by the scale-down. */
  readonly keep: number;
  /** The cluster has settled once no NodeClaim changed for this long. */
  readonly settleS: number;
  readonly timeoutS: number;
  /**
   * `--audit`: the API server writes its audit log (metadata level) into the stack's directory, so a figure that
   * must not happen (a node over its allocatable) can be traced to the Bindings that made it. Its load is in the run.
   */
  readonly audit: boolean;
  /**
   * Karpenter's LOG_LEVEL: info as its chart, or debug (`--karpenter-debug`), whose lines say why consolidation
   * decided nothing (at info, a round with no decision logs nothing from the disruption controller).
   */
  readonly karpenterLogLevel: 'info' | 'debug';
  readonly highs: LegacyHighs;
  /** `--paths-dir`: where each burst's per-pod paths through the stages are written (stage-paths-file.ts). */
  readonly pathsDir?: string | undefined;
  readonly write: (text: string) => void;
}

export interface RunFigures {
  readonly controller: Controller;
  readonly boundS: number;
  readonly runningS: number;
  readonly curve: string;
  readonly burst: Fleet;
  readonly burstBound: number;
  /** Instance launch to Node creation (Ready), median and max seconds. */
  readonly boot: [number, number];
  /** Scale-down to the last NodeClaim change. */
  readonly settleS: number;
  readonly settled: boolean;
  readonly consolidated: Fleet;
  readonly consolidatedBound: number;
  readonly disrupted: number;
  readonly launches: number;
  readonly rssPeakMiB: number;
  readonly cpuBurstS: number;
  readonly cpuScaleS: number;
  readonly schedulerCpuS: number;
  /** kube-apiserver's and kwok's CPU from the burst's start to all Running: what turns bound pods Running. */
  readonly apiServerBurstCpuS: number;
  readonly kwokBurstCpuS: number;
  /** The real nodes the burst ended on, for the floor (stack-floor.ts) to create again. */
  readonly nodes: readonly FloorNode[];
  /** The floor on these nodes (`--no-floor`: not run). */
  readonly floor?: FloorFigures;
  /** nodesmith's side only: the floor with kube-scheduler calling a do-nothing extender (`--no-extender-floor`: not run). */
  readonly extenderFloor?: FloorFigures;
}

const cpuS = (pid: number): number => { const t = processCpuMs(pid); return (t.user + t.system) / 1000; };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the controller on the world, both pricing from the proxy's one table (the Pricing API and the spot price
 * history): its pid, and how to stop it.
 */
async function startController(world: KarpenterWorld, controller: Controller, { batch, scaleInRank, karpenterLogLevel }: Pick<RunOptions, 'batch' | 'scaleInRank' | 'karpenterLogLevel'>): Promise<{ pid: number; stop(): Promise<void> }> {
  if (controller === 'karpenter') {
    // info: Karpenter's chart default, as nodesmith's (NODESMITH_LOG_LEVEL, set by the bench); debug on request.
    const k = await world.startKarpenter({ logLevel: karpenterLogLevel, pricingApi: true });
    return { pid: k.component.process.pid ?? -1, stop: () => k.stop() };
  }
  // From dist/ as the image runs it (under tsx the process also carries the transpiler), batching as Karpenter does (1 s idle).
  const product = await startProductOn(world, { childProcess: true, compiled: true, batch, scaleInRank, consolidation: { spotToSpot: false }, liveSpotPricesEveryMs: 300_000 });
  return { pid: product.childPid() ?? -1, stop: () => product.stop() };
}

/**
 * Until the controller has read the table: its GetProducts pages (shared and bare metal) and the spot price history,
 * none asked for 3 s. A controller that planned before would decide from its built-in prices.
 */
async function pricesRead(world: KarpenterWorld): Promise<void> {
  const asked = (): number => world.proxy.actions.filter((a) => a === 'GetProducts' || a === 'DescribeSpotPriceHistory').length;
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const now = asked();
    if (now === last && world.proxy.actions.includes('GetProducts') && world.proxy.actions.includes('DescribeSpotPriceHistory')) return;
    last = now;
    await sleep(3_000);
  }
  throw new Error(`the controller never read the prices: ${String(asked())} GetProducts/DescribeSpotPriceHistory calls in 3 minutes`);
}

function boundOf(pods: readonly k8s.V1Pod[], table: readonly InstanceType[], options: RunOptions): number {
  const offers = afterDaemons(nodeOffers(table), daemonOverhead(options.workload));
  return assignmentBound(options.highs, offers, podClasses(pods.map((p) => projectPod(toWire(p))))).cost;
}

/** After the scale-down: polls until no NodeClaim changed for settleS and every remaining pod runs. */
async function untilSettled({ world, sampling }: Watched, remaining: number, scaledAt: number, options: RunOptions): Promise<{ lastChangeMs: number; seen: Set<string>; settled: boolean }> {
  let last: string[] = [];
  let lastChangeMs = scaledAt;
  const seen = new Set<string>();
  while (Date.now() - scaledAt < options.timeoutS * 1000) {
    await sampling.maybe();
    const states = await claimStates(world.custom);
    for (const s of states) seen.add(s.replace(' (deleting)', ''));
    if (states.join() !== last.join()) lastChangeMs = Date.now();
    last = states;
    const pods = await livePods(world.core);
    const allRunning = pods.length === remaining && pods.every((p) => p.status?.phase === 'Running');
    const quiet = Date.now() - lastChangeMs >= options.settleS * 1000;
    options.write(`    t=${((Date.now() - scaledAt) / 1000).toFixed(0)}s nodeclaims ${String(states.filter((s) => !s.endsWith('(deleting)')).length)} (+${String(states.filter((s) => s.endsWith('(deleting)')).length)} deleting), pods ${String(pods.length)}\n`);
    if (quiet && allRunning && !states.some((s) => s.endsWith('(deleting)'))) return { lastChangeMs, seen, settled: true };
    await sleep(5_000);
  }
  return { lastChangeMs, seen, settled: false };
}

/** The world a run polls, and the invariants it samples as it does. */
interface Watched { readonly world: KarpenterWorld; readonly sampling: Sampler }

/** The burst's timeline per stage under either controller: Karpenter's has no extender, virtual node or launch log line. */
function stageLines(controller: Controller, watch: StageWatch, burst: { readonly nodesmithLog: string; readonly startedMs: number; readonly pathsDir: string | undefined }): string {
  const { nodesmithLog, startedMs, pathsDir } = burst;
  const title = `${controller}: timeline per stage, seconds after each pod was created:`;
  const paths = controller === 'nodesmith' ? nodesmithStagePaths(watch, nodesmithLog, startedMs) : karpenterPaths(watch);
  const report = timelineReport(title, watch, paths, controller === 'nodesmith' ? nodesmithColumns : karpenterColumns);
  return pathsDir === undefined ? report : `${report}  each pod's path: ${writeStagePaths(pathsDir, controller, startedMs, paths)}\n`;
}

export async function runOnce(controller: Controller, options: RunOptions): Promise<RunFigures> {
  const { write, total } = options;
  // Boot delay 0 for both: nodesmith creates the Node at launch; the stand-in registers Karpenter's at its next pass.
  const world = await startKarpenterWorld(clusterName, { kubeletBootMs: 0, audit: options.audit });
  let running: { pid: number; stop(): Promise<void> } | undefined;
  try {
    const prices: Ec2Prices = racePrices(world.moto.region);
    world.proxy.setEc2Prices(prices);
    running = await startController(world, controller, options);
    await pricesRead(world);
    const pid = running.pid;
    const table = poolTable(prices, options.workload.capacityTypes);
    const pidOf = (name: string): number => world.stack.components.get(name)?.process.pid ?? -1;
    const schedulerPid = pidOf('kube-scheduler');
    const stackPids = { apiServer: pidOf('kube-apiserver'), kwok: pidOf('kwok') };
    const apps = world.kc.makeApiClient(k8s.AppsV1Api);
    for (const body of options.workload.daemonSets) await apps.createNamespacedDaemonSet({ namespace: 'kube-system', body });
    await world.apply(poolYaml(world, options.workload));
    const cpu0 = cpuS(pid);
    const scheduler0 = cpuS(schedulerPid);
    const stack0 = { apiServer: cpuS(stackPids.apiServer), kwok: cpuS(stackPids.kwok) };
    const started = Date.now();
    const binds = await watchStages(world.kc, 'default', started);
    const shapes = options.workload.deployments;
    for (const d of shapes) await apps.createNamespacedDeployment({ namespace: 'default', body: deployment(d) });
    const invariants = new RaceInvariants(world.core);
    const sampling = sampler(invariants);
    const runningMs = await untilRunning({ world, sampling }, binds, started, options);
    binds.stop();
    const boundMs = binds.boundAtMs.size >= total ? Math.max(...binds.boundAtMs.values()) : Number.NaN;
    const cpu1 = cpuS(pid);
    const stackBurst = { apiServer: cpuS(stackPids.apiServer) - stack0.apiServer, kwok: cpuS(stackPids.kwok) - stack0.kwok };
    const burstPods = await livePods(world.core);
    const burstInstances = await clusterInstances(world.moto, clusterName);
    const burstFleet = priceFleet(burstInstances, prices);
    const burstChoices = world.proxy.fleetChoices.length;
    write(`${fleetLines(controller, world.proxy.fleetChoices)}\n`);
    const burstNodes = (await world.core.listNode()).items;
    const boot = bootSeconds(burstInstances, burstNodes);
    write(stageLines(controller, binds, { nodesmithLog: join(world.stack.dir, 'nodesmith.log'), startedMs: started, pathsDir: options.pathsDir }));
    write(`  ${controller}: burst Running after ${(runningMs / 1000).toFixed(1)} s, ${String(burstFleet.instances)} instances (${String(burstFleet.spot)} spot) $${burstFleet.price.toFixed(3)}/h (${burstFleet.types}); boot median ${boot[0].toFixed(0)} s, max ${boot[1].toFixed(0)} s\n`);

    const known = new Set(burstPods.map((p) => p.metadata?.uid ?? ''));
    const arrivals = await watchPodArrivals(world.kc, known);
    const claimsBefore = new Set((await claimStates(world.custom)).map((s) => s.replace(' (deleting)', '')));
    const scaledAt = Date.now();
    const kept = shapes.map((d) => ({ ...d, replicas: Math.round(d.replicas * options.keep) }));
    for (const d of kept) await apps.patchNamespacedDeploymentScale({ name: d.name, namespace: 'default', body: { spec: { replicas: d.replicas } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    const remaining = kept.reduce((s, d) => s + d.replicas, 0);
    const settle = await untilSettled({ world, sampling }, remaining, scaledAt, options);
    arrivals.stop();
    const consolidatedFleet = priceFleet(await clusterInstances(world.moto, clusterName), prices);
    write(`${fleetLines(`${controller} after the scale-down`, world.proxy.fleetChoices.slice(burstChoices))}\n`);
    const figures: RunFigures = {
      controller, boundS: boundMs / 1000, runningS: runningMs / 1000, curve: boundCurve([...binds.boundAtMs.values()]),
      burst: burstFleet, burstBound: boundOf(burstPods, table, options), boot,
      settleS: (settle.lastChangeMs - scaledAt) / 1000, settled: settle.settled,
      consolidated: consolidatedFleet, consolidatedBound: boundOf(await livePods(world.core), table, options),
      disrupted: arrivals.added.size, launches: [...settle.seen].filter((n) => !claimsBefore.has(n)).length,
      rssPeakMiB: statusMiB(pid, 'VmHWM'), cpuBurstS: cpu1 - cpu0, cpuScaleS: cpuS(pid) - cpu1, schedulerCpuS: cpuS(schedulerPid) - scheduler0,
      apiServerBurstCpuS: stackBurst.apiServer, kwokBurstCpuS: stackBurst.kwok, nodes: floorNodes(burstNodes),
    };
    write(`  ${controller}: settled ${figures.settleS.toFixed(0)} s after the scale-down${settle.settled ? '' : ' (not settled before the timeout)'}, ${String(consolidatedFleet.instances)} instances (${String(consolidatedFleet.spot)} spot) $${consolidatedFleet.price.toFixed(3)}/h (${consolidatedFleet.types}), ${String(figures.disrupted)} pods disrupted, ${String(figures.launches)} launches\n`);
    write(`  ${controller}: bound pods every 2 s: ${figures.curve}\n`);
    // nodesmith's Events say which command moved what (Karpenter's say less); the pods of the burst are the originals.
    if (controller === 'nodesmith') write(movesLines(consolidationMoves((await world.core.listNamespacedEvent({ namespace: 'default' })).items, new Set(burstPods.map((p) => p.metadata?.name ?? ''))), scaledAt));
    write(invariants.line(controller));
    return figures;
  } catch (error) {
    write(`  ${controller} run failed; logs (${world.stack.dir}):\n${world.logTails()}\n`);
    throw error;
  } finally {
    await running?.stop().catch(() => undefined);
    await world.stop();
  }
}
