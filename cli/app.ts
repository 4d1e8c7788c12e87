import type { PricedInstanceTypes } from '../provisioner/pricing/priced-instance-types.js';
import { pino, type Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import { serve as serveExtender, type RunningExtender } from '../extender/serve.js';
import { reloadExtenderTls } from './extender-tls.js';
import { readTlsFiles } from '../webhooks/tls-reloader.js';
import { createAwsProvider } from '../provisioner/aws/aws-provider.js';
import { KubePodBinder } from '../provisioner/kube/binder.js';
import { startClusterInformers } from '../provisioner/kube/cluster-informers.js';
import { countedEventRecorder, type KubeEventRecorder } from '../provisioner/kube/events.js';
import { ApiConnection } from '../provisioner/kube/api-connection.js';
import { loadKubeConfig, type KubeTarget } from '../provisioner/kube/kube-config.js';
import { KubeRest } from '../provisioner/kube/kube-rest.js';
import { LeaderElector } from '../provisioner/kube/leader-election.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import { KubeNodeClaimClient } from '../provisioner/kube/nodeclaim-client.js';
import { PlanMaterializer } from '../provisioner/launch/materializer.js';
import { LeaderRoutedMaterializer } from '../provisioner/launch/launch-request.js';
import type { Materializer } from '../provisioner/index.js';
import { Provisioner } from '../provisioner/provisioning/provisioner.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import { serveWebhooks, type RunningWebhooks } from '../webhooks/serve.js';
import type { NodesmithConfig } from './app-config.js';
import { startHealthServer } from './health-server.js';
import { launchMetrics } from '../provisioner/launch/metrics.js';
import { planningMetrics } from '../provisioner/provisioning/metrics.js';
import { registerClusterGauges } from '../provisioner/cluster-gauges.js';
import { registerNodePoolCost } from '../provisioner/nodepool-cost.js';
import { offeringPrices } from '../provisioner/disruption/offering-prices.js';
import { registerPodMetrics, type PodMetrics } from '../provisioner/pod-metrics.js';
import { registerStatusConditionMetrics } from '../provisioner/status-condition-metrics.js';
import { unplannedPendingPods } from '../provisioner/state/snapshot.js';
import { registerInstanceTypeMetrics } from '../provisioner/pricing/instance-type-metrics.js';
import { registerCatalogSourceMetric } from '../provisioner/pricing/catalog-sources.js';
import { registerBuildInfo } from './build-info.js';
import { readVersion } from './version.js';
import { startLifecycleControllers, type LifecycleWiring } from './lifecycle-wiring.js';
import { startDisruption } from './disruption-wiring.js';
import { catalogControllers, nodeClassControllers, pricedInstanceTypes, reservedCapacity } from './nodeclass-wiring.js';
import { NodeOverlays, NodeOverlayStatusController } from '../provisioner/pricing/node-overlays.js';
import { KubeNodeOverlayStatusWriter } from '../provisioner/kube/nodeoverlay-status-client.js';
import { BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { bufferDeps, capacityBufferControllers } from './buffer-wiring.js';
import { startKarpenterGuard, type RunningGuard } from './takeover-wiring.js';
import { startStaticCapacity } from './static-wiring.js';
import { StaticLaunches } from '../provisioner/static/static-launches.js';

export interface RunningNodesmith {
  readonly state: ClusterState;
  readonly registry: Registry;
  readonly extender?: RunningExtender;
  readonly webhooks?: RunningWebhooks;
  readonly materializer?: PlanMaterializer;
  readonly healthUrl: string;
  stop(): Promise<void>;
}


/** Starts the selected components in one process, sharing one cluster state, one registry and one logger. */
export async function startNodesmith(config: NodesmithConfig): Promise<RunningNodesmith> {
  const log: Logger = pino({ level: config.logLevel, base: { app: 'nodesmith' } });
  const stops: (() => Promise<void>)[] = [];
  const target = loadKubeConfig(config.kubeconfig, { env: config.kubeEnv });
  // One pooled connection for every controller write; it closes after everything that writes has stopped.
  const api = new KubeRest(new ApiConnection(target));
  const stopAll = async (): Promise<void> => {
    for (const [index, stop] of [...stops, () => api.close()].entries()) {
      const started = Date.now();
      await stop().catch((e: unknown) => { log.warn({ err: e }, 'stopping a component failed'); });
      log.debug({ step: index, ms: Date.now() - started }, 'stopped a component');
    }
  };
  try {
    return await startComponents({ config, target, api, log }, stops, stopAll);
  } catch (error) {
    // A half-started process must not keep informers, leases or servers alive behind the error.
    await stopAll();
    throw error;
  }
}

/** The informers, synced; with the NodeOverlay and CapacityBuffer gates on, those kinds among them (and returned). */
async function startInformers(connections: Connections, state: ClusterState, stops: (() => Promise<void>)[]): Promise<{ overlays: NodeOverlays | undefined; buffers: BufferRoom | undefined }> {
  const informerLog = connections.log.child({ component: 'provisioner.state' });
  // With the gate off NodeOverlays are not even watched: an applied overlay does nothing, as in Karpenter.
  const overlays = connections.config.nodeOverlay === true ? new NodeOverlays() : undefined;
  const buffers = connections.config.capacityBuffer === true ? new BufferRoom() : undefined;
  // The API server answers 429 while a new CRD's storage initialises; such errors are retried, so the log keeps one line.
  const informers = startClusterInformers(connections.target, state, { onError: (resource, e) => { informerLog.warn({ resource, error: e instanceof Error ? e.message.split('\n')[0] : String(e) }, 'watch failed; restarting'); }, ...(overlays === undefined ? {} : { overlays: overlays.handlers }), ...(buffers === undefined ? {} : { buffers: buffers.handlers }) });
  stops.push(() => informers.stop());
  await informers.synced;
  return { overlays, buffers };
}

interface Connections {
  readonly config: NodesmithConfig;
  readonly target: KubeTarget;
  readonly api: KubeRest;
  readonly log: Logger;
}

/** The one picture of the cluster; pods of the early-planning schedulers count as pending before they are tried. */
function clusterStateFor(config: NodesmithConfig): ClusterState {
  return new ClusterState(undefined, { earlySchedulers: new Set(config.earlyPlanningSchedulers ?? []) });
}

async function startComponents(connections: Connections, stops: (() => Promise<void>)[], stopAll: () => Promise<void>): Promise<RunningNodesmith> {
  const { config, target, api, log } = connections;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'nodesmith_' });
  const state = clusterStateFor(config);
  // Subscribed before the informers start, so pods pending at start-up are seen pending.
  const podMetrics = registerPodMetrics(registry, state, systemClock);
  const stopConditionMetrics = registerStatusConditionMetrics(registry, state, systemClock);
  const { overlays, buffers } = await startInformers(connections, state, stops);

  const isLeader = startLeaderElection(config, target, log, stops);

  const guard = startGuard({ config, api, state, registry, log, isLeader }, stops);
  const ctx: ProvisioningContext = { config, target, api, state, registry, log, isLeader, mayAct: guard?.mayAct ?? isLeader, podMetrics, overlays, buffers };
  const provisioning = guard === undefined ? undefined : startProvisioning(ctx, guard);
  if (provisioning !== undefined) stops.push(provisioning.stop);
  const { extender, webhooks } = await startServers(ctx, provisioning?.launcher, stops);
  registerClusterGauges(registry, state, systemClock);
  stops.push(() => { podMetrics.stop(); stopConditionMetrics(); return Promise.resolve(); });
  registerBuildInfo(registry, { version: readVersion(), commit: config.commit, runtime: { version: process.version, arch: process.arch } });
  const health = await startHealthServer({ ...config.health, registry, isReady: () => state.isSynced, consolidation: provisioning?.explainConsolidation });
  stops.unshift(health.close);
  log.info({ extender: extender?.url, webhooks: webhooks?.url, health: health.url, components: config.components }, 'started nodesmith');
  return {
    state, registry, ...(extender === undefined ? {} : { extender }), ...(webhooks === undefined ? {} : { webhooks }),
    ...(provisioning === undefined ? {} : { materializer: provisioning.materializer }), healthUrl: health.url,
    stop: async () => {
      await stopAll();
      log.info('stopped nodesmith');
      log.flush();
    },
  };
}

/**
 * Never two controllers at once: while Karpenter runs, nothing that provisions acts on NodePools (docs/migration.md).
 * Undefined when this process neither provisions nor serves the extender.
 */
function startGuard(w: Parameters<typeof startKarpenterGuard>[0], stops: (() => Promise<void>)[]): RunningGuard | undefined {
  if (!w.config.components.provisioner && !w.config.components.extender) return undefined;
  const guard = startKarpenterGuard(w);
  stops.push(guard.stop);
  return guard;
}

/** The extender and the webhooks, each only when selected; their close() runs before everything else stops. */
async function startServers(ctx: ProvisioningContext, materializer: Materializer | undefined, stops: (() => Promise<void>)[]): Promise<{ extender?: RunningExtender; webhooks?: RunningWebhooks }> {
  const { config, target, state, registry, log } = ctx;
  // Binds get a pool of their own: the extender's hot path never queues behind controller writes.
  const binder = config.components.extender ? KubePodBinder.fromKubeConfig(target) : undefined;
  const extender = binder !== undefined
    ? await serveExtender({
      view: state, binder, materializer, registry,
      logger: log.child({ component: 'extender' }), host: config.extender.host, port: config.extender.port,
      https: config.extender.tls === undefined ? undefined : readTlsFiles(config.extender.tls),
    })
    : undefined;
  const stopTlsReload = extender !== undefined && config.extender.tls !== undefined ? reloadExtenderTls(extender.app, config.extender.tls) : undefined;
  if (extender !== undefined) {
    stops.unshift(async () => {
      stopTlsReload?.();
      await closeWithin(extender, () => extender.close());
      // After the server: binds still in flight finish on the pooled connections.
      await binder?.close();
    });
  }
  const webhooks = config.components.webhooks
    ? await serveWebhooks({ certFile: config.webhooks.certFile, keyFile: config.webhooks.keyFile, host: config.webhooks.host, port: config.webhooks.port, registry, productServiceAccount: config.webhooks.productServiceAccount, gates: { staticCapacity: config.staticCapacity === true, capacityBuffer: config.capacityBuffer === true }, logger: { level: config.logLevel, base: { app: 'nodesmith', component: 'webhooks' } } })
    : undefined;
  if (webhooks !== undefined) stops.unshift(() => closeWithin(webhooks.app.server, () => webhooks.close()));
  return { ...(extender === undefined ? {} : { extender }), ...(webhooks === undefined ? {} : { webhooks }) };
}

/** Only the leader plans, launches and garbage-collects; without election this process always leads. */
function startLeaderElection(config: NodesmithConfig, target: KubeTarget, log: Logger, stops: (() => Promise<void>)[]): () => boolean {
  if (!config.leaderElection.enabled) return () => true;
  // A connection of its own: on the shared pool the renewal queued behind a burst's writes for 40-70 s (audit log
  // of a 10,000-pod run), far past the 10 s renew deadline, and a leader that cannot renew must stop launching.
  const leaseApi = new KubeRest(new ApiConnection(target));
  const elector = LeaderElector.overApi(leaseApi, { clock: systemClock, namespace: config.leaderElection.namespace, name: 'nodesmith-provisioner', identity: config.leaderElection.identity, log: log.child({ component: 'provisioner.leader' }) });
  elector.start();
  stops.push(async () => { await elector.stop(); await leaseApi.close(); });
  return () => elector.isLeader();
}

/**
 * kube-scheduler and the API server hold keep-alive connections for a minute; close() would wait for them.
 * In-flight requests get a grace period to finish (a bind waiting on a launch), then connections are cut.
 */
async function closeWithin(server: { closeAllConnections(): void }, close: () => Promise<void>, graceMs = 5_000): Promise<void> {
  const timer = setTimeout(() => { server.closeAllConnections(); }, graceMs);
  try {
    await close();
  } finally {
    clearTimeout(timer);
  }
}

interface ProvisioningContext {
  config: NodesmithConfig; target: KubeTarget; api: KubeRest; state: ClusterState; registry: Registry; log: Logger; isLeader: () => boolean;
  /** The leader, and Karpenter is not running: what provisioning, disruption, lifecycle and GC wait for. */
  mayAct: () => boolean;
  podMetrics: PodMetrics;
  /** The cluster's NodeOverlays, when the NodeOverlay gate is on. */
  overlays: NodeOverlays | undefined;
  /** The CapacityBuffers' room, when the CapacityBuffer gate is on. */
  buffers: BufferRoom | undefined;
}

/** The gated kinds' part of the lifecycle controllers: NodeOverlays and their status, CapacityBuffers and their room. */
function gatedControllers(ctx: ProvisioningContext, priced: PricedInstanceTypes): { watched: NonNullable<LifecycleWiring['watched']> } {
  const overlays = ctx.overlays === undefined ? [] : [{ store: ctx.overlays, controller: new NodeOverlayStatusController({ overlays: ctx.overlays, target: priced, writer: new KubeNodeOverlayStatusWriter(ctx.api), clock: systemClock }) }];
  return { watched: [...overlays, ...capacityBufferControllers(ctx.api, ctx.buffers)] };
}

/** The one launcher of this replica, which logs and counts each launch. */
function planMaterializer(w: {
  state: ClusterState; nodeClaims: KubeNodeClaimClient; nodes: KubeNodeWriter; aws: ReturnType<typeof createAwsProvider>; priced: PricedInstanceTypes;
  events: KubeEventRecorder; isLeader: () => boolean; launched: ReturnType<typeof launchMetrics>; launchLog: Logger;
}): PlanMaterializer {
  const { aws } = w;
  return new PlanMaterializer({
    state: w.state, nodeClaims: w.nodeClaims, nodes: w.nodes, cloud: aws.cloudProviderFor('provisioner.launch'), resolver: aws.nodeClassResolver, catalog: () => w.priced.catalog(), events: w.events, clock: systemClock,
    unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()), isLeader: w.isLeader,
    onLaunched: (instance, plan, seconds) => {
      w.launched(instance, plan.nodePool, seconds);
      w.launchLog.info({ nodeClaim: instance.nodeClaimName, instanceType: instance.instanceType, zone: instance.zone, capacityType: instance.capacityType, providerId: instance.providerID, seconds }, 'launched nodeclaim');
    },
  });
}

function startProvisioning(ctx: ProvisioningContext, guard: RunningGuard): { materializer: PlanMaterializer; launcher: Materializer; explainConsolidation?: () => Promise<unknown>; stop: () => Promise<void> } {
  const { config, api, state, registry, log, mayAct: isLeader, podMetrics } = ctx;
  const awsLog = log.child({ component: 'aws' });
  const aws = createAwsProvider({ ...config.aws, cluster: config.cluster, kubernetesVersion: config.kubernetesVersion, clock: systemClock, registry, warn: (message) => { awsLog.warn(message); } });
  const priced = pricedInstanceTypes(config, aws.spotPrices, log);
  ctx.overlays?.applyTo(priced);
  registerInstanceTypeMetrics(registry, { instanceTypes: () => priced.instanceTypes(), unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()) });
  registerNodePoolCost(registry, state, offeringPrices(() => priced.catalog()));
  const nodes = new KubeNodeWriter(api);
  const nodeClaims = new KubeNodeClaimClient(api);
  const events = countedEventRecorder(api, { clock: systemClock, registry, log: log.child({ component: 'provisioner.events' }) });
  const catalog = catalogControllers(priced, aws, { state, events, log });
  registerCatalogSourceMetric(registry, catalog.sources);
  const reserved = reservedCapacity({ api, state, aws, nodeClaims, priced, log, enabled: config.reservedCapacity !== false });
  const metrics = { planned: planningMetrics(registry, () => unplannedPendingPods(state).length), launched: launchMetrics(registry) };
  const launchLog = log.child({ component: 'provisioner.launch' });
  const materializer = planMaterializer({ state, nodeClaims, nodes, aws, priced, events, isLeader, launched: metrics.launched, launchLog });
  const planLog = log.child({ component: 'provisioner.plan' });
  const provisioner = new Provisioner({
    state, nodes, events, clock: systemClock, instanceTypes: () => priced.instanceTypes(), windows: config.batch, isLeader,
    unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()),
    reservedCapacity: reserved.source, ...bufferDeps(ctx.buffers),
    launchNow: (name) => { materializer.materialize(name).catch((e: unknown) => { launchLog.warn({ virtualNode: name, err: e }, 'direct launch failed'); }); },
    onPlanned: (s) => {
      metrics.planned(s);
      podMetrics.schedulable(s.placed, s.decidedAtMs);
      planLog.info({ pods: s.pods, newNodes: s.newNodes, unschedulable: s.unschedulable, ignored: s.ignored, seconds: s.seconds, decideSeconds: s.decideSeconds, spotPrices: priced.origin(), instanceTypes: catalog.sources().instanceTypes.source, onDemandPrices: catalog.sources().onDemandPrices.source }, 'planned pending pods');
    },
    onError: (what, e) => { planLog.error({ err: e }, `${what} failed`); },
  });
  const lifecycle = config.components.provisioner ? startLifecycleControllers({ api, state, cloud: aws.cloudProviderFor('nodeclaim.lifecycle'), nodeClaims, events, registry, log, isLeader, interruption: { ...(aws.interruptionQueue === undefined ? {} : { queue: aws.interruptionQueue }), unavailableOfferings: aws.unavailableOfferings, health: aws.instanceHealth },
    nodeClassControllers: [...nodeClassControllers({ api, state, profiles: aws.instanceProfiles, resolver: aws.nodeClassResolver, events, cluster: config.cluster.name, region: config.aws.region, log, alsoReadyWhen: reserved.readyConditions }), priced, ...catalog.controllers, ...reserved.controllers],
    ...gatedControllers(ctx, priced),
    drift: { catalog: () => priced.catalog(), ...(config.driftRecheckMs === undefined ? {} : { recheckMs: config.driftRecheckMs }) }, nodeRepair: config.nodeRepair === true }) : undefined;
  const staticLaunches = new StaticLaunches();
  const disruption = lifecycle === undefined ? undefined : startDisruption({
    api, state, materializer, nodeClaims, events, registry, log, isLeader, countDisrupted: lifecycle.countDisrupted, staticLaunches, ...bufferDeps(ctx.buffers),
    ...(config.consolidation === undefined ? {} : { consolidation: config.consolidation }),
    instanceTypes: () => priced.instanceTypes(), catalog: () => priced.catalog(), unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()),
  });
  if (config.components.provisioner) provisioner.start();
  const staticCapacity = lifecycle === undefined || config.staticCapacity !== true ? undefined : startStaticCapacity({ state, nodeClaims, materializer, launches: staticLaunches, instanceTypes: () => priced.instanceTypes(), unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()), log, isLeader });
  // Every replica's extender is Ready and may take a bind; a standby's launch goes to the leader (DECISIONS.md, "Failover").
  // The Karpenter guard refuses this replica's own launches while Karpenter runs; it only runs on the leader, so a
  // standby's requests are judged there, not refused by a guard that never read Karpenter's Lease.
  const launcher = new LeaderRoutedMaterializer({ state, nodes, local: guard.guardMaterializer(materializer), isLeader: ctx.isLeader, clock: systemClock, identity: config.leaderElection.identity });
  return {
    materializer, launcher,
    ...(disruption?.explain === undefined ? {} : { explainConsolidation: disruption.explain }),
    stop: async () => {
      await provisioner.stop();
      await staticCapacity?.stop();
      await disruption?.stop();
      await lifecycle?.stop();
      aws.close();
    },
  };
}
