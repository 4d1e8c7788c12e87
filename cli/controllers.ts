import type { Controller } from '../provisioner/runtime/controller-runner.js';
import { leaseRetryPeriodMs } from '../provisioner/kube/leader-election.js';
import type { LifecycleControllers } from '../provisioner/lifecycle/controllers.js';
import { driftRecheckMs } from '../provisioner/lifecycle/drift.js';
import { spotPricePeriodMs } from '../provisioner/pricing/priced-instance-types.js';
import { heartbeatPeriodMs } from '../provisioner/provisioning/provisioner.js';
import { webhookCertReloadMs } from '../webhooks/serve.js';
import type { NodesmithConfig } from './app-config.js';
import { periodic, type PeriodicController } from './controller-periods.js';
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
    ...optional(p.guard, (guard) => takeover('takeover.karpenter', guard, p.config)),
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
    disruption('nodeclaim.consolidatable', l.disruption.consolidatable, config),
    disruption('disruption', l.disruption.controller, config),
    { name: 'provisioner.plan', period: 'pending pods', lease: acting, runner: 'provisioner', loop: l.provisioner },
    { name: 'provisioner.heartbeat', period: heartbeatPeriodMs, lease: acting, runner: 'provisioner', loop: l.provisioner },
    // Its own runner: its launches run in the background, and its deletes must not queue behind termination.
    ...optional(l.staticCapacity, (c) => onStatic('static.replicas', c, config)),
  ];
}

/** The lifecycle runner's controllers, in the order each of its passes runs them. */
function lifecycleRunner(l: LeaderParts, config: NodesmithConfig): Listed[] {
  const c = l.lifecycle;
  return [
    lifecycle('nodeclaim.launch', l.claimLaunch, config),
    lifecycle('nodeclaim.registration', c.registration, config),
    lifecycle('nodeclaim.liveness', c.liveness, config),
    lifecycle('nodeclaim.termination', c.termination, config),
    lifecycle('nodeclaim.expiration', c.expiration, config),
    ...optional(c.drift, (drift) => ownFlag('nodeclaim.disruption.drift', config.driftRecheckMs ?? driftRecheckMs, drift)),
    ...optional(c.health, (health) => lifecycle('node.health', health, config)),
    lifecycle('gc.virtual_nodes', c.virtualNodes, config),
    lifecycle('gc.virtual_node_pods', c.virtualNodePods, config),
    lifecycle('gc.instances', c.orphanInstances, config),
    lifecycle('gc.nodeclaims', c.lostNodeClaims, config),
    lifecycle('nodepool.readiness', l.nodePools.readiness, config),
    lifecycle('nodepool.usage', l.nodePools.usage, config),
    lifecycle('nodeclass.instanceprofile', l.nodeClasses.instanceProfile, config),
    lifecycle('nodeclass.status', l.nodeClasses.status, config),
    ownFlag('pricing.spot', config.aws.spotPriceRefreshMs ?? spotPricePeriodMs, l.catalog.spotPrices),
    lifecycle('providers.instancetype', l.catalog.instanceTypes, config),
    lifecycle('providers.pricing.ondemand', l.catalog.onDemandPrices, config),
    lifecycle('nodeclass.catalogsource', l.catalog.sourceEvents, config),
    ...(l.reservations === undefined ? [] : [
      lifecycle('nodeclass.capacityreservation', l.reservations.discovery, config),
      lifecycle('capacityreservation.expiration', l.reservations.expiration, config),
      lifecycle('capacityreservation.capacitytype', l.reservations.demotion, config),
    ]),
    lifecycle('interruption.instancestatus', l.interruption.instanceStatus, config),
    ...optional(l.overlays, (overlays) => lifecycle('nodeoverlay.status', overlays, config)),
    ...optional(l.buffers, (buffers) => lifecycle('capacitybuffer', buffers, config)),
    lifecycle('provisioningrequest', l.provisioningRequests, config),
    ...optional(l.claimHandover, (handover) => lifecycle('dra.claim_handover', handover, config)),
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

/** An entry for a runner: its period the configuration's (`--controller-periods`) or the default, controllers.ts's. */
const onRunner = (runner: RunnerName, lease: Lease) => (name: PeriodicController, controller: Controller, config: NodesmithConfig): ListedController =>
  ({ name, lease, runner, ...periodic(name, controller, config.controllerPeriods) });
const takeover = onRunner('takeover', 'leader');
const lifecycle = onRunner('lifecycle', acting);
const disruption = onRunner('disruption', acting);
const onStatic = onRunner('static', acting);
/** Drift and spot prices: their periods have flags of their own, which their controllers are built with. */
const ownFlag = (name: string, period: number, controller: Controller): ListedController => ({ name, period, lease: acting, runner: 'lifecycle', controller });

function everyReplica(name: string, period: Period, runner: LoopName): ListedLoop {
  return { name, period, lease: 'every replica', runner };
}

function optional<T>(part: T | undefined, entry: (part: T) => Listed): Listed[] {
  return part === undefined ? [] : [entry(part)];
}
