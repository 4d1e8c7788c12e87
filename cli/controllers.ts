import type { Controller } from '../provisioner/controller-runner.js';
import { consolidatablePeriodMs } from '../provisioner/disruption/consolidatable-writer.js';
import { disruptionPeriodMs } from '../provisioner/disruption/controller.js';
import { lostNodeClaimGcPeriodMs } from '../provisioner/gc/lost-nodeclaims.js';
import { orphanInstanceGcPeriodMs } from '../provisioner/gc/orphan-instances.js';
import { virtualNodePodGcPeriodMs } from '../provisioner/gc/virtual-node-pods.js';
import { virtualNodeGcPeriodMs } from '../provisioner/gc/virtual-nodes.js';
import { instanceStatusPeriodMs } from '../provisioner/interruption/instance-status-controller.js';
import { leaseRetryPeriodMs } from '../provisioner/kube/leader-election.js';
import type { LifecycleControllers } from '../provisioner/lifecycle/controllers.js';
import { driftRecheckMs } from '../provisioner/lifecycle/drift.js';
import { expirationPeriodMs } from '../provisioner/lifecycle/expiration.js';
import { livenessPeriodMs } from '../provisioner/lifecycle/liveness.js';
import { nodeHealthPeriodMs } from '../provisioner/lifecycle/node-health.js';
import { registrationPeriodMs } from '../provisioner/lifecycle/registration.js';
import { terminationPeriodMs } from '../provisioner/lifecycle/termination.js';
import { bufferResyncMs } from '../provisioner/buffers/buffer-controller.js';
import { capacityBlockPeriodMs } from '../provisioner/nodeclass/capacity-block-expiration.js';
import { capacityReservationPeriodMs } from '../provisioner/nodeclass/capacity-reservation-controller.js';
import { catalogSourcePeriodMs } from '../provisioner/nodeclass/catalog-source-events.js';
import { instanceProfilePeriodMs } from '../provisioner/nodeclass/instance-profile-controller.js';
import { nodeClassStatusPeriodMs } from '../provisioner/nodeclass/nodeclass-status-controller.js';
import { reservedDemotionPeriodMs } from '../provisioner/nodeclass/reserved-capacity-demotion.js';
import { catalogRefreshMs } from '../provisioner/pricing/catalog-refresh.js';
import { nodeOverlayStatusPeriodMs } from '../provisioner/pricing/node-overlays.js';
import { spotPricePeriodMs } from '../provisioner/pricing/priced-instance-types.js';
import { nodePoolReadinessPeriodMs } from '../provisioner/provisioning/nodepool-readiness.js';
import { nodePoolUsagePeriodMs } from '../provisioner/provisioning/nodepool-usage.js';
import { heartbeatPeriodMs } from '../provisioner/provisioning/provisioner.js';
import { staticReplicasPeriodMs } from '../provisioner/static/static-replicas-controller.js';
import { karpenterGuardPeriodMs } from '../provisioner/takeover/karpenter-guard.js';
import { claimLaunchPeriodMs } from '../provisioner/launch/claim-launcher.js';
import { claimHandoverPeriodMs } from '../provisioner/lifecycle/claim-handover.js';
import { provisioningRequestPeriodMs } from '../provisioner/provisioning-requests/provisioning-request-controller.js';
import { webhookCertReloadMs } from '../webhooks/serve.js';
import type { NodesmithConfig } from './app-config.js';
import { extenderCertReloadMs } from './extender-tls.js';

// What `nodesmith run` starts, in the order it starts it, in one list (Karpenter's pkg/controllers/controllers.go).
// Each entry gives a controller's or loop's name (its log component and metric `controller` label), how often it
// runs when nothing wakes it, whether it needs the Lease, and what runs it. The *-wiring.ts files build the parts;
// runners.ts starts the leader's part of this list and is the only place a ControllerRunner is made; app.ts starts
// the informers and the Lease before it and the servers after it.

/**
 * Who runs an entry. `every replica`: the standby too, so its model stays warm and its extender answers. `leader`:
 * the Lease's holder. `leader, Karpenter stopped`: the holder while the Karpenter guard lets it act
 * (docs/migration.md); whatever launches, deletes or writes NodeClaims waits for this.
 */
export type Lease = 'every replica' | 'leader' | 'leader, Karpenter stopped';

/** The ControllerRunners: each runs its controllers one pass at a time, so a slow pass holds up only its own runner. */
export type RunnerName = 'takeover' | 'lifecycle' | 'disruption' | 'static';

/** What runs an entry that is no runner's controller. */
export type LoopName = 'informers' | 'leader election' | 'provisioner' | 'interruption queue' | 'server' | 'file watch';

/** Milliseconds between passes when nothing wakes the entry (most come sooner while they have work), or what drives it. */
export type Period = number | 'watch events' | 'pending pods' | 'long poll' | 'requests';

interface Entry {
  readonly name: string;
  readonly period: Period;
  readonly lease: Lease;
}

/** A controller, run by one of the ControllerRunners. */
export interface ListedController extends Entry {
  readonly runner: RunnerName;
  readonly controller: Controller;
}

/** A loop that starts and stops by itself. */
export interface Loop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A loop of its own or a server. The leader's loops carry their `loop` and start with the runners, in list order;
 * one that `stopsWith` a runner is stopped within that runner's stop (after its wakes, before its last pass ends).
 * The others (informers, Lease, servers) carry none: app.ts starts and stops them.
 */
export interface ListedLoop extends Entry {
  readonly runner: LoopName;
  readonly loop?: Loop;
  readonly stopsWith?: RunnerName;
}

export type Listed = ListedController | ListedLoop;

/** The parts the list is made of, built by the wiring files. */
export interface RunParts {
  readonly config: NodesmithConfig;
  /** The Karpenter guard, with the provisioner or the extender component. */
  readonly guard?: Controller;
  /** The leader's controllers and loops, with the provisioner component. */
  readonly leader?: LeaderParts;
}

export interface LeaderParts {
  readonly lifecycle: LifecycleControllers;
  /** Launches the NodeClaims no plan, command or static pool launches (one a user applied). */
  readonly claimLaunch: Controller;
  readonly nodePools: { readonly readiness: Controller; readonly usage: Controller };
  readonly nodeClasses: { readonly instanceProfile: Controller; readonly status: Controller };
  /** The priced catalog: `spotPrices` is the catalog itself, the others refresh its parts and report its sources. */
  readonly catalog: { readonly spotPrices: Controller; readonly instanceTypes: Controller; readonly onDemandPrices: Controller; readonly sourceEvents: Controller };
  /** With the ReservedCapacity gate on. */
  readonly reservations?: { readonly discovery: Controller; readonly expiration: Controller; readonly demotion: Controller };
  /** `queue` when an interruption queue is configured. */
  readonly interruption: { readonly instanceStatus: Controller; readonly queue?: Loop };
  /** With the NodeOverlay gate on. */
  readonly overlays?: Controller;
  /** With the CapacityBuffer gate on. */
  readonly buffers?: Controller;
  /** ProvisioningRequests (Cluster Autoscaler's API, for Kueue): the check-capacity class answered, the others' status. */
  readonly provisioningRequests: Controller;
  /** With the DynamicResourceAllocation gate on: claims allocated on virtual nodes moved to their real nodes' devices. */
  readonly claimHandover?: Controller;
  readonly disruption: { readonly consolidatable: Controller; readonly controller: Controller };
  /** With the StaticCapacity gate on. */
  readonly staticCapacity?: Controller;
  /** The planner's two loops: planning pending pods, and the virtual nodes' heartbeat. */
  readonly provisioner: Loop;
}

/** Everything `nodesmith run` starts with this configuration, in start order. */
export function runList(p: RunParts): Listed[] {
  return [
    ...beforeTheLeader(p.config),
    // The leader's, even while Karpenter runs: only the guard notices that Karpenter stopped.
    ...optional(p.guard, (guard) => takeover('takeover.karpenter', karpenterGuardPeriodMs, guard)),
    ...(p.leader === undefined ? [] : leaderList(p.leader, p.config)),
    ...servers(p.config),
  ];
}

/**
 * The order the leader's runs stop in, as they always have: the planner first, then static capacity and disruption
 * (each waits for what it began), the lifecycle runner last. The guard's runner stops on its own, before these.
 */
export const leaderStopOrder = ['provisioner', 'static', 'disruption', 'lifecycle'] as const satisfies readonly (RunnerName | LoopName)[];

const acting = 'leader, Karpenter stopped';

/** Every replica, first: the picture of the cluster (synced before anything else starts), then the Lease. */
function beforeTheLeader(config: NodesmithConfig): ListedLoop[] {
  return [
    everyReplica('provisioner.state', 'watch events', 'informers'),
    ...(config.leaderElection.enabled ? [everyReplica('provisioner.leader', leaseRetryPeriodMs, 'leader election')] : []),
  ];
}

function leaderList(l: LeaderParts, config: NodesmithConfig): Listed[] {
  return [
    // A loop of its own beside the lifecycle runner: a 20 s long poll would hold up every pass (DECISIONS.md).
    ...optional(l.interruption.queue, (loop) => ({ name: 'interruption', period: 'long poll', lease: acting, runner: 'interruption queue', loop, stopsWith: 'lifecycle' })),
    ...lifecycleRunner(l, config),
    // Their own runner: a command waiting on a launch must not hold up registration or termination.
    disruption('nodeclaim.consolidatable', consolidatablePeriodMs, l.disruption.consolidatable),
    disruption('disruption', disruptionPeriodMs, l.disruption.controller),
    { name: 'provisioner.plan', period: 'pending pods', lease: acting, runner: 'provisioner', loop: l.provisioner },
    { name: 'provisioner.heartbeat', period: heartbeatPeriodMs, lease: acting, runner: 'provisioner', loop: l.provisioner },
    // Its own runner: its launches run in the background, and its deletes must not queue behind termination.
    ...optional(l.staticCapacity, (c) => onStatic('static.replicas', staticReplicasPeriodMs, c)),
  ];
}

/** The lifecycle runner's controllers, in the order each of its passes runs them. */
function lifecycleRunner(l: LeaderParts, config: NodesmithConfig): Listed[] {
  const c = l.lifecycle;
  return [
    lifecycle('nodeclaim.launch', claimLaunchPeriodMs, l.claimLaunch),
    lifecycle('nodeclaim.registration', registrationPeriodMs, c.registration),
    lifecycle('nodeclaim.liveness', livenessPeriodMs, c.liveness),
    lifecycle('nodeclaim.termination', terminationPeriodMs, c.termination),
    lifecycle('nodeclaim.expiration', expirationPeriodMs, c.expiration),
    ...optional(c.drift, (drift) => lifecycle('nodeclaim.disruption.drift', config.driftRecheckMs ?? driftRecheckMs, drift)),
    ...optional(c.health, (health) => lifecycle('node.health', nodeHealthPeriodMs, health)),
    lifecycle('gc.virtual_nodes', virtualNodeGcPeriodMs, c.virtualNodes),
    lifecycle('gc.virtual_node_pods', virtualNodePodGcPeriodMs, c.virtualNodePods),
    lifecycle('gc.instances', orphanInstanceGcPeriodMs, c.orphanInstances),
    lifecycle('gc.nodeclaims', lostNodeClaimGcPeriodMs, c.lostNodeClaims),
    lifecycle('nodepool.readiness', nodePoolReadinessPeriodMs, l.nodePools.readiness),
    lifecycle('nodepool.usage', nodePoolUsagePeriodMs, l.nodePools.usage),
    lifecycle('nodeclass.instanceprofile', instanceProfilePeriodMs, l.nodeClasses.instanceProfile),
    lifecycle('nodeclass.status', nodeClassStatusPeriodMs, l.nodeClasses.status),
    lifecycle('pricing.spot', config.aws.spotPriceRefreshMs ?? spotPricePeriodMs, l.catalog.spotPrices),
    lifecycle('providers.instancetype', catalogRefreshMs, l.catalog.instanceTypes),
    lifecycle('providers.pricing.ondemand', catalogRefreshMs, l.catalog.onDemandPrices),
    lifecycle('nodeclass.catalogsource', catalogSourcePeriodMs, l.catalog.sourceEvents),
    ...(l.reservations === undefined ? [] : [
      lifecycle('nodeclass.capacityreservation', capacityReservationPeriodMs, l.reservations.discovery),
      lifecycle('capacityreservation.expiration', capacityBlockPeriodMs, l.reservations.expiration),
      lifecycle('capacityreservation.capacitytype', reservedDemotionPeriodMs, l.reservations.demotion),
    ]),
    lifecycle('interruption.instancestatus', instanceStatusPeriodMs, l.interruption.instanceStatus),
    ...optional(l.overlays, (overlays) => lifecycle('nodeoverlay.status', nodeOverlayStatusPeriodMs, overlays)),
    ...optional(l.buffers, (buffers) => lifecycle('capacitybuffer', bufferResyncMs, buffers)),
    lifecycle('provisioningrequest', provisioningRequestPeriodMs, l.provisioningRequests),
    ...optional(l.claimHandover, (handover) => lifecycle('dra.claim_handover', claimHandoverPeriodMs, handover)),
  ];
}

/** Every replica, last: each server only when its component is selected, the health server always. */
function servers(config: NodesmithConfig): ListedLoop[] {
  const { components, extender } = config;
  return [
    ...(components.extender ? [everyReplica('extender', 'requests', 'server')] : []),
    ...(components.extender && extender.tls !== undefined ? [everyReplica('extender.tls', extenderCertReloadMs, 'file watch')] : []),
    ...(components.webhooks ? [everyReplica('webhooks', 'requests', 'server'), everyReplica('webhooks.tls', webhookCertReloadMs, 'file watch')] : []),
    everyReplica('health', 'requests', 'server'),
  ];
}

const onRunner = (runner: RunnerName, lease: Lease) => (name: string, period: number, controller: Controller): ListedController => ({ name, period, lease, runner, controller });
const takeover = onRunner('takeover', 'leader');
const lifecycle = onRunner('lifecycle', acting);
const disruption = onRunner('disruption', acting);
const onStatic = onRunner('static', acting);

function everyReplica(name: string, period: Period, runner: LoopName): ListedLoop {
  return { name, period, lease: 'every replica', runner };
}

function optional<T>(part: T | undefined, entry: (part: T) => Listed): Listed[] {
  return part === undefined ? [] : [entry(part)];
}
