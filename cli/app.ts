import { pino, type Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import { serve as serveExtender, type RunningExtender } from '../extender/serve.js';
import { reloadExtenderTls } from './extender-tls.js';
import { bindForwarding, leaseAnnotationsOf } from './extender-peers.js';
import { readTlsFiles } from '../webhooks/tls-reloader.js';
import { KubePodBinder } from '../provisioner/kube/binder.js';
import { startClusterInformers } from '../provisioner/kube/cluster-informers.js';
import { ApiConnection } from '../provisioner/kube/api-connection.js';
import { loadKubeConfig, type KubeTarget } from '../provisioner/kube/kube-config.js';
import { KubeRest } from '../provisioner/kube/kube-rest.js';
import { LeaderElector } from '../provisioner/kube/leader-election.js';
import type { PlanMaterializer } from '../provisioner/launch/materializer.js';
import type { Materializer } from '../provisioner/index.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import { serveWebhooks, type RunningWebhooks } from '../webhooks/serve.js';
import type { NodesmithConfig } from './app-config.js';
import { startHealthServer } from './health-server.js';
import { registerClusterGauges } from '../provisioner/cluster-gauges.js';
import { registerPodMetrics } from '../provisioner/pod-metrics.js';
import { registerStatusConditionMetrics } from '../provisioner/status-condition-metrics.js';
import { registerBuildInfo } from './build-info.js';
import { readVersion } from './version.js';
import { NodeOverlays } from '../provisioner/pricing/node-overlays.js';
import { BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { karpenterGuard } from './takeover-wiring.js';
import { leaderStopOrder, runList } from './controllers.js';
import { startList, type RunningList } from './runners.js';
import { provisioningParts, type ProvisioningContext } from './provisioning-wiring.js';
import { leaderParts } from './leader-wiring.js';

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
  const onServed = (resource: string, served: boolean): void => {
    // An optional kind (ProvisioningRequest) whose CRD is not installed: none of it exists; looked for again every 30 s.
    if (served) informerLog.info({ resource }, 'resource is served now; watching it');
    else informerLog.info({ resource }, 'resource is not served (its CRD is not installed); looking for it every 30 s');
  };
  const informers = startClusterInformers(connections.target, state, { onError: (resource, e) => { informerLog.warn({ resource, error: e instanceof Error ? e.message.split('\n')[0] : String(e) }, 'watch failed; restarting'); }, onServed, dra: connections.config.dynamicResourceAllocation !== false, ...(overlays === undefined ? {} : { overlays: overlays.handlers }), ...(buffers === undefined ? {} : { buffers: buffers.handlers }) });
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

  // From here on, what starts is cli/controllers.ts's list, in its order: the Lease, the leader's runs, the servers.
  const elector = startLeaderElection(config, target, log, stops);
  const isLeader = elector === undefined ? () => true : () => elector.isLeader();
  const provisioning = startLeader({ config, api, state, registry, log, isLeader, podMetrics, overlays, buffers }, stops);
  const { extender, webhooks } = await startServers({ config, target, state, registry, log, elector }, provisioning?.launcher, stops);
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

/** The extender and the webhooks, each only when selected; their close() runs before everything else stops. */
async function startServers(ctx: Pick<ProvisioningContext, 'config' | 'state' | 'registry' | 'log'> & { target: KubeTarget; elector: LeaderElector | undefined }, materializer: Materializer | undefined, stops: (() => Promise<void>)[]): Promise<{ extender?: RunningExtender; webhooks?: RunningWebhooks }> {
  const { config, target, state, registry, log } = ctx;
  // Binds get a pool of their own: the extender's hot path never queues behind controller writes.
  const binder = config.components.extender ? KubePodBinder.fromKubeConfig(target) : undefined;
  const extender = binder !== undefined
    ? await serveExtender({
      view: state, binder, materializer, registry, ...(ctx.elector === undefined ? {} : { forwarding: bindForwarding(config, () => ctx.elector?.leader()) }),
      logger: log.child({ component: 'extender' }), host: config.extender.host, port: config.extender.port, scaleInRank: config.extender.scaleInRank,
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

/** Only the leader plans, launches, garbage-collects and binds; without election this process always leads. */
function startLeaderElection(config: NodesmithConfig, target: KubeTarget, log: Logger, stops: (() => Promise<void>)[]): LeaderElector | undefined {
  if (!config.leaderElection.enabled) return undefined;
  // A connection of its own: on the shared pool the renewal queued behind a burst's writes for 40-70 s (audit log
  // of a 10,000-pod run), far past the 10 s renew deadline, and a leader that cannot renew must stop launching.
  const leaseApi = new KubeRest(new ApiConnection(target));
  const elector = LeaderElector.overApi(leaseApi, { clock: systemClock, namespace: config.leaderElection.namespace, name: 'nodesmith-provisioner', identity: config.leaderElection.identity, annotations: leaseAnnotationsOf(config), log: log.child({ component: 'provisioner.leader' }) });
  elector.start();
  stops.push(async () => { await elector.stop(); await leaseApi.close(); });
  return elector;
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

/**
 * Never two controllers at once: while Karpenter runs, nothing that provisions acts on NodePools (docs/migration.md).
 * With the provisioner or the extender component: the Karpenter guard, the planner's parts (the extender binds through
 * them), and, with the provisioner, everything the leader runs, started from the one list (cli/controllers.ts).
 */
function startLeader(ctx: Omit<ProvisioningContext, 'mayAct'>, stops: (() => Promise<void>)[]): { materializer: PlanMaterializer; launcher: Materializer; explainConsolidation?: () => Promise<unknown> } | undefined {
  const { config } = ctx;
  if (!config.components.provisioner && !config.components.extender) return undefined;
  // Interruptions and repairs wake termination from parts built before the runners exist.
  const late: { running?: RunningList } = {};
  const wake = (name: string): void => { late.running?.wake(name); };
  const guard = karpenterGuard(ctx);
  const acting = { ...ctx, mayAct: guard.mayAct };
  const provisioning = provisioningParts(acting, guard);
  const leader = config.components.provisioner ? leaderParts({ ...acting, wake }, provisioning) : undefined;
  const list = runList({ config, guard: guard.guard, ...(leader === undefined ? {} : { leader: leader.parts }) });
  const started = startList(list, { clock: systemClock, gates: { leader: ctx.isLeader, 'leader, Karpenter stopped': guard.mayAct }, hooks: { takeover: guard.runner, ...leader?.hooks } });
  late.running = started;
  stops.push(() => started.stop(['takeover']));
  stops.push(async () => {
    await started.stop(leaderStopOrder);
    provisioning.aws.close();
  });
  return { materializer: provisioning.materializer, launcher: provisioning.launcher, ...(leader?.explainConsolidation === undefined ? {} : { explainConsolidation: leader.explainConsolidation }) };
}
