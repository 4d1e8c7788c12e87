import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../domain/clock.js';
import type { BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { createAwsProvider, type AwsProvider } from '../provisioner/aws/aws-provider.js';
import { offeringPrices } from '../provisioner/disruption/offering-prices.js';
import type { Materializer } from '../provisioner/index.js';
import { countedEventRecorder, type KubeEventRecorder } from '../provisioner/kube/events.js';
import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import { KubeVirtualNodeSlices } from '../provisioner/kube/resource-slice-client.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import { KubeNodeClaimClient } from '../provisioner/kube/nodeclaim-client.js';
import { LeaderRoutedMaterializer } from '../provisioner/launch/launch-request.js';
import { PlanMaterializer } from '../provisioner/launch/materializer.js';
import { launchMetrics } from '../provisioner/launch/metrics.js';
import { registerNodePoolCost } from '../provisioner/nodepool-cost.js';
import type { PodMetrics } from '../provisioner/pod-metrics.js';
import { registerCatalogSourceMetric } from '../provisioner/pricing/catalog-sources.js';
import { registerInstanceTypeMetrics } from '../provisioner/pricing/instance-type-metrics.js';
import type { NodeOverlays } from '../provisioner/pricing/node-overlays.js';
import type { PricedInstanceTypes } from '../provisioner/pricing/priced-instance-types.js';
import { planningMetrics } from '../provisioner/provisioning/metrics.js';
import { Provisioner } from '../provisioner/provisioning/provisioner.js';
import type { ClusterState } from '../provisioner/state/cluster-state.js';
import { unplannedPendingPods } from '../provisioner/state/snapshot.js';
import type { NodesmithConfig } from './app-config.js';
import { bufferDeps } from './buffer-wiring.js';
import { catalogControllers, pricedInstanceTypes, reservedCapacity, type CatalogWiring, type ReservedCapacity } from './nodeclass-wiring.js';
import type { GuardParts } from './takeover-wiring.js';

export interface ProvisioningContext {
  readonly config: NodesmithConfig;
  readonly api: KubeRest;
  readonly state: ClusterState;
  readonly registry: Registry;
  readonly log: Logger;
  /** Holds the Lease: a standby's extender hands its launches to the leader. */
  readonly isLeader: () => boolean;
  /** The leader, and Karpenter is not running: what provisioning, disruption, lifecycle and GC wait for. */
  readonly mayAct: () => boolean;
  readonly podMetrics: PodMetrics;
  /** The cluster's NodeOverlays, when the NodeOverlay gate is on. */
  readonly overlays: NodeOverlays | undefined;
  /** The CapacityBuffers' room, when the CapacityBuffer gate is on. */
  readonly buffers: BufferRoom | undefined;
}

/** The planner and what it plans and launches with; the priced catalog's controllers run on the lifecycle runner. */
export interface ProvisioningParts {
  readonly aws: AwsProvider;
  readonly priced: PricedInstanceTypes;
  readonly catalog: CatalogWiring;
  readonly reserved: ReservedCapacity;
  readonly nodeClaims: KubeNodeClaimClient;
  readonly events: KubeEventRecorder;
  /** This replica's one launcher, which logs and counts each launch. */
  readonly materializer: PlanMaterializer;
  /** Its plan and heartbeat loops, which cli/controllers.ts lists. */
  readonly provisioner: Provisioner;
  /** What the extender binds through: a standby's launch goes to the leader, and none while Karpenter runs. */
  readonly launcher: Materializer;
}

/** AWS, the priced catalog, the materializer and the planner, built for the extender's binds and the leader's loops. */
export function provisioningParts(ctx: ProvisioningContext, guard: Pick<GuardParts, 'guardMaterializer'>): ProvisioningParts {
  const { config, api, state, registry, log, mayAct: isLeader } = ctx;
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
    ...(config.dynamicResourceAllocation !== false ? { slices: new KubeVirtualNodeSlices(api) } : {}),
    launchNow: (name) => { materializer.materialize(name).catch((e: unknown) => { launchLog.warn({ virtualNode: name, err: e }, 'direct launch failed'); }); },
    onPlanned: (s) => {
      metrics.planned(s);
      ctx.podMetrics.schedulable(s.placed, s.decidedAtMs);
      planLog.info({ pods: s.pods, newNodes: s.newNodes, unschedulable: s.unschedulable, ignored: s.ignored, seconds: s.seconds, decideSeconds: s.decideSeconds, ...(s.batch === undefined ? {} : { batch: s.batch }), spotPrices: priced.origin(), instanceTypes: catalog.sources().instanceTypes.source, onDemandPrices: catalog.sources().onDemandPrices.source }, 'planned pending pods');
    },
    onError: (what, e) => { planLog.error({ err: e }, `${what} failed`); },
  });
  // Every replica's extender is Ready and may take a bind; a standby's launch goes to the leader (DECISIONS.md, "Failover").
  // The Karpenter guard refuses this replica's own launches while Karpenter runs; it only runs on the leader, so a
  // standby's requests are judged there, not refused by a guard that never read Karpenter's Lease.
  const launcher = new LeaderRoutedMaterializer({ state, nodes, local: guard.guardMaterializer(materializer), isLeader: ctx.isLeader, clock: systemClock, identity: config.leaderElection.identity });
  return { aws, priced, catalog, reserved, nodeClaims, events, materializer, provisioner, launcher };
}

function planMaterializer(w: {
  state: ClusterState; nodeClaims: KubeNodeClaimClient; nodes: KubeNodeWriter; aws: AwsProvider; priced: PricedInstanceTypes;
  events: KubeEventRecorder; isLeader: () => boolean; launched: ReturnType<typeof launchMetrics>; launchLog: Logger;
}): PlanMaterializer {
  const { aws } = w;
  return new PlanMaterializer({
    state: w.state, nodeClaims: w.nodeClaims, nodes: w.nodes, cloud: aws.cloudProviderFor('provisioner.launch'), resolver: aws.launchNodeClassResolver, catalog: () => w.priced.catalog(), events: w.events, clock: systemClock,
    unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()), isLeader: w.isLeader,
    onLaunched: (instance, plan, seconds) => {
      w.launched(instance, plan.nodePool, seconds);
      w.launchLog.info({ nodeClaim: instance.nodeClaimName, instanceType: instance.instanceType, zone: instance.zone, capacityType: instance.capacityType, providerId: instance.providerID, seconds }, 'launched nodeclaim');
    },
  });
}
