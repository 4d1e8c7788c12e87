import { ClaimHandover } from '../provisioner/lifecycle/claim-handover.js';
import { KubeResourceClaims } from '../provisioner/kube/resource-claim-client.js';
import type { AwsProvider } from '../provisioner/aws/aws-provider.js';
import { ClaimLaunchController, type TemplateLauncher } from '../provisioner/launch/claim-launcher.js';
import { systemClock } from '../domain/clock.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import type { PricedInstanceTypes } from '../provisioner/pricing/priced-instance-types.js';
import { StaticLaunches } from '../provisioner/static/static-launches.js';
import { KubeProvisioningRequests } from '../provisioner/kube/provisioningrequest-client.js';
import { ProvisioningRequestMetrics } from '../provisioner/provisioning-requests/metrics.js';
import { ProvisioningRequestController } from '../provisioner/provisioning-requests/provisioning-request-controller.js';
import { MaterializingLauncher } from '../provisioner/disruption/replacement-launcher.js';
import { bufferDeps, capacityBufferController } from './buffer-wiring.js';
import type { LeaderParts, Loop } from './controllers.js';
import { disruptionParts } from './disruption-wiring.js';
import { lifecycleParts, type Watched } from './lifecycle-wiring.js';
import { nodeClassControllers, nodeOverlayStatus, type CatalogWiring, type ReservedCapacity } from './nodeclass-wiring.js';
import type { ProvisioningContext } from './provisioning-wiring.js';
import type { RunnerHooks } from './runners.js';
import { staticCapacity } from './static-wiring.js';

export interface LeaderWiring extends Omit<ProvisioningContext, 'podMetrics'> {
  /** Wakes a controller on the runner that runs it (cli/runners.ts). */
  readonly wake: (name: string) => void;
}

/** What the leader's parts take of the planner's (provisioning-wiring.ts builds them). */
export interface PlannerParts {
  readonly aws: Pick<AwsProvider, 'cloudProviderFor' | 'instanceProfiles' | 'nodeClassResolver' | 'interruptionQueue' | 'unavailableOfferings' | 'instanceHealth'>;
  readonly priced: PricedInstanceTypes;
  readonly catalog: CatalogWiring;
  readonly reserved: ReservedCapacity;
  readonly nodeClaims: NodeClaimStore;
  readonly events: EventRecorder;
  readonly materializer: TemplateLauncher;
  readonly provisioner: Loop;
}

/** The leader's controllers and loops, with what their runners need to run them. */
export interface LeaderWired {
  readonly parts: LeaderParts;
  readonly hooks: { readonly lifecycle: RunnerHooks; readonly disruption: RunnerHooks; readonly static?: RunnerHooks };
  /** What consolidation would do now, when it is on. */
  readonly explainConsolidation?: () => Promise<unknown>;
}

/** Builds what the leader runs beside the planner (with the provisioner component): lifecycle, disruption, static capacity. */
export function leaderParts(w: LeaderWiring, p: PlannerParts): LeaderWired {
  const { config, api, state, registry, log, mayAct: isLeader } = w;
  const { aws, priced, nodeClaims, events, materializer } = p;
  const cloud = aws.cloudProviderFor('nodeclaim.lifecycle');
  const nodeClasses = nodeClassControllers({ api, state, profiles: aws.instanceProfiles, resolver: aws.nodeClassResolver, events, cluster: config.cluster.name, region: config.aws.region, log, alsoReadyWhen: p.reserved.readyConditions, instanceTypes: () => priced.instanceTypes() });
  const overlays = nodeOverlayStatus(api, w.overlays, priced);
  const buffers = capacityBufferController(api, w.buffers);
  const lifecycle = lifecycleParts({
    api, state, cloud, nodeClaims, events, registry, log, isLeader, wake: w.wake,
    interruption: { ...(aws.interruptionQueue === undefined ? {} : { queue: aws.interruptionQueue }), unavailableOfferings: aws.unavailableOfferings, health: aws.instanceHealth },
    watched: [overlays, buffers].filter((watched): watched is Watched => watched !== undefined),
    drift: { catalog: () => priced.catalog(), ...(config.driftRecheckMs === undefined ? {} : { recheckMs: config.driftRecheckMs }) }, nodeRepair: config.nodeRepair === true,
  });
  const offerings = { instanceTypes: () => priced.instanceTypes(), unavailableOfferings: () => new Set(aws.unavailableOfferings.keys()) };
  const staticLaunches = new StaticLaunches();
  const disruption = disruptionParts({
    api, state, materializer, nodeClaims, events, registry, log, isLeader, countDisrupted: lifecycle.countDisrupted, staticLaunches, ...bufferDeps(w.buffers),
    ...(config.consolidation === undefined ? {} : { consolidation: config.consolidation }), ...offerings, catalog: () => priced.catalog(),
  });
  const requests = new KubeProvisioningRequests(api);
  // Every replica watches ProvisioningRequests (none while their CRD is absent); the leader answers them.
  const provisioningRequests = new ProvisioningRequestController({
    state, templates: requests, writer: requests, events, clock: systemClock, ...offerings, launcher: new MaterializingLauncher(materializer), nodeClaims,
    metrics: new ProvisioningRequestMetrics(registry), log: log.child({ component: 'provisioningrequest' }),
  });
  const claimLaunch = new ClaimLaunchController({ state, launcher: materializer, store: nodeClaims, events, clock: systemClock, log, ...offerings });
  // controller-runtime's reconcile metrics for every runner's controllers, as Karpenter counts each of its own (one
  // set of counters: the lifecycle runner's).
  const counted = (hooks: RunnerHooks): RunnerHooks => (lifecycle.runner.onReconciled === undefined ? hooks : { ...hooks, onReconciled: lifecycle.runner.onReconciled });
  const statics = config.staticCapacity === true ? staticCapacity({ state, nodeClaims, materializer, launches: staticLaunches, ...offerings, log }) : undefined;
  return {
    parts: {
      lifecycle: lifecycle.controllers, claimLaunch, nodePools: lifecycle.nodePools, nodeClasses,
      catalog: { spotPrices: priced, instanceTypes: p.catalog.instanceTypes, onDemandPrices: p.catalog.onDemandPrices, sourceEvents: p.catalog.sourceEvents },
      ...(p.reserved.controllers === undefined ? {} : { reservations: p.reserved.controllers }),
      interruption: lifecycle.interruption,
      ...(overlays === undefined ? {} : { overlays: overlays.controller }),
      ...(buffers === undefined ? {} : { buffers: buffers.controller }),
      provisioningRequests,
      ...(config.dynamicResourceAllocation !== false ? { claimHandover: new ClaimHandover({ state, claims: new KubeResourceClaims(api), log: log.child({ component: 'dra.claim_handover' }) }) } : {}),
      disruption: { consolidatable: disruption.consolidatable, controller: disruption.controller },
      ...(statics === undefined ? {} : { staticCapacity: statics.controller }),
      provisioner: p.provisioner,
    },
    hooks: { lifecycle: lifecycle.runner, disruption: counted(disruption.runner), ...(statics === undefined ? {} : { static: counted(statics.runner) }) },
    ...(disruption.explain === undefined ? {} : { explainConsolidation: disruption.explain }),
  };
}
