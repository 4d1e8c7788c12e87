import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import type { InstanceProfileProvider } from '../domain/cloud/instance-profiles.js';
import type { SpotPriceSource } from '../domain/cloud/spot-prices.js';
import { buildInstanceTypes, liveCatalog } from '../domain/instance-types/catalog.js';
import { PricedInstanceTypes } from '../provisioner/pricing/priced-instance-types.js';
import type { NodesmithConfig } from './app-config.js';
import { KubeNodeClassClient } from '../provisioner/kube/ec2nodeclass-client.js';
import { InstanceProfileController, type NodeClassView } from '../provisioner/nodeclass/instance-profile-controller.js';
import { NodeClassStatusController } from '../provisioner/nodeclass/nodeclass-status-controller.js';
import type { NodeClassResolver } from '../domain/cloud/cloud-provider.js';
import type { EventRecorder } from '../provisioner/ports/events.js';
import type { AwsProvider } from '../provisioner/aws/aws-provider.js';
import { CatalogSourceEvents, type CatalogSourceEventsOptions } from '../provisioner/nodeclass/catalog-source-events.js';
import { CatalogRefresh } from '../provisioner/pricing/catalog-refresh.js';
import type { CatalogSources } from '../provisioner/pricing/catalog-sources.js';
import type { NodeClaim } from '../domain/api/nodeclaim-schema.js';
import type { NodeClaimStore } from '../provisioner/ports/nodeclaim-store.js';
import { CapacityReservationController, capacityReservationsReady } from '../provisioner/nodeclass/capacity-reservation-controller.js';
import { CapacityBlockExpiration } from '../provisioner/nodeclass/capacity-block-expiration.js';
import { ReservedCapacityDemotion } from '../provisioner/nodeclass/reserved-capacity-demotion.js';
import { KubeNodeWriter } from '../provisioner/kube/node-client.js';
import type { Node } from '../domain/core/node.js';
import type { ReservedCapacitySource } from '../provisioner/provisioning/reservation-offers.js';
import { NodeOverlayStatusController, type NodeOverlays } from '../provisioner/pricing/node-overlays.js';
import { KubeNodeOverlayStatusWriter } from '../provisioner/kube/nodeoverlay-status-client.js';
import type { DescribedInstanceTypes } from '../domain/instance-types/catalog-entry.js';
import type { Watched } from './lifecycle-wiring.js';
import type { InstanceType } from '../domain/instance-types/instance-type.js';

export interface NodeClassWiring {
  readonly api: KubeRest;
  readonly state: NodeClassView;
  readonly profiles: InstanceProfileProvider;
  readonly resolver: NodeClassResolver;
  readonly events: EventRecorder;
  readonly cluster: string;
  readonly region: string;
  readonly log: Logger;
  /** Conditions of other EC2NodeClass controllers that Ready also sums (reservedCapacity's readyConditions). */
  readonly alsoReadyWhen?: readonly string[];
  /** The catalog the status evaluates kubelet expressions on. */
  readonly instanceTypes?: () => readonly InstanceType[];
}

/** The EC2NodeClass controllers, for the leader's lifecycle runner; woken when an EC2NodeClass changes. */
export function nodeClassControllers(w: NodeClassWiring): { readonly instanceProfile: InstanceProfileController; readonly status: NodeClassStatusController } {
  const log = w.log.child({ component: 'provisioner.nodeclass' });
  const writer = new KubeNodeClassClient(w.api);
  return {
    instanceProfile: new InstanceProfileController({ view: w.state, writer, profiles: w.profiles, cluster: w.cluster, region: w.region, clock: systemClock, log }),
    status: new NodeClassStatusController({ view: w.state, writer, resolver: w.resolver, events: w.events, clock: systemClock, log, ...(w.alsoReadyWhen === undefined ? {} : { alsoReadyWhen: w.alsoReadyWhen }), ...(w.instanceTypes === undefined ? {} : { instanceTypes: w.instanceTypes }) }),
  };
}

/** The catalog the planner prices with: live spot prices unless `--spot-prices catalog`. */
export function pricedInstanceTypes(config: NodesmithConfig, source: SpotPriceSource, log: Logger): PricedInstanceTypes {
  const zones = config.zones === undefined ? {} : { zones: config.zones };
  const { reservedEnis, vmMemoryOverheadPercent } = config.aws;
  const sizing = { ...(reservedEnis === undefined ? {} : { reservedEnis }), ...(vmMemoryOverheadPercent === undefined ? {} : { vmMemoryOverheadPercent }) };
  return new PricedInstanceTypes({
    build: ({ spotPrices, described, onDemandPrices }) => buildInstanceTypes(
      liveCatalog(config.aws.region, described, onDemandPrices),
      { region: config.aws.region, ...zones, ...sizing, ...(spotPrices === undefined ? {} : { spotPrices }) },
    ),
    ...(config.aws.spotPrices === 'catalog' ? {} : { source }),
    ...(config.aws.spotPriceRefreshMs === undefined ? {} : { intervalMs: config.aws.spotPriceRefreshMs }),
    log: log.child({ component: 'provisioner.pricing' }),
  });
}

/** The live catalog's refresh controllers and the EC2NodeClass Events that say which sources are in use. */
export interface CatalogWiring {
  readonly instanceTypes: CatalogRefresh<DescribedInstanceTypes>;
  readonly onDemandPrices: CatalogRefresh<ReadonlyMap<string, number>>;
  /** Reports the sources on each EC2NodeClass; runs after the refreshes. */
  readonly sourceEvents: CatalogSourceEvents;
  readonly sources: () => CatalogSources;
}

export function catalogControllers(priced: PricedInstanceTypes, aws: Pick<AwsProvider, 'instanceTypes' | 'onDemandPrices'>, w: { readonly state: CatalogSourceEventsOptions['view'] } & Pick<NodeClassWiring, 'events' | 'log'>): CatalogWiring {
  const log = w.log.child({ component: 'provisioner.pricing' });
  const types = new CatalogRefresh({
    name: 'providers.instancetype', fetch: () => aws.instanceTypes.describe(), clock: systemClock, log,
    apply: (described) => { priced.useDescribed(described); return described.entries.length; },
  });
  const onDemand = new CatalogRefresh({
    name: 'providers.pricing.ondemand', fetch: () => aws.onDemandPrices.current(), clock: systemClock, log,
    apply: (prices) => { priced.useOnDemandPrices(prices); return prices.size; },
  });
  const sources = (): CatalogSources => ({ instanceTypes: types.status(), onDemandPrices: onDemand.status(), spotPrices: priced.origin() });
  return { instanceTypes: types, onDemandPrices: onDemand, sourceEvents: new CatalogSourceEvents({ view: w.state, sources, events: w.events }), sources };
}

export interface ReservedCapacity {
  /** For the lifecycle runner; none with the gate off. */
  readonly controllers?: { readonly discovery: CapacityReservationController; readonly expiration: CapacityBlockExpiration; readonly demotion: ReservedCapacityDemotion };
  /** What the planner reads to plan into the reservations. */
  readonly source: ReservedCapacitySource;
  readonly readyConditions: readonly string[];
}

/**
 * Karpenter's ReservedCapacity gate (on by default): discovery of the EC2NodeClasses' capacity reservations, the
 * replacement of capacity-block nodes before the block ends, on-demand labels for nodes whose reservation ended
 * under them, and what the planner reads to plan into them.
 */
export function reservedCapacity(w: {
  readonly api: KubeRest;
  readonly state: NodeClassView & { readonly nodeClaims: ReadonlyMap<string, NodeClaim>; readonly nodes: ReadonlyMap<string, Node> };
  readonly aws: Pick<AwsProvider, 'capacityReservations' | 'reservationAvailability' | 'cloudProviderFor'>;
  readonly nodeClaims: Pick<NodeClaimStore, 'delete' | 'addLabels'>;
  /** Prices reserved offerings as every other offering, overlays included. */
  readonly priced: Pick<PricedInstanceTypes, 'reservedOffering'>;
  readonly log: Logger;
  /** Off: no controller runs and the planner sees no reservation. */
  readonly enabled: boolean;
}): ReservedCapacity {
  if (!w.enabled) return { source: { reservationsOf: () => [], availability: w.aws.reservationAvailability }, readyConditions: [] };
  const log = w.log.child({ component: 'provisioner.nodeclass' });
  const discovery = new CapacityReservationController({
    view: w.state, source: w.aws.capacityReservations, availability: w.aws.reservationAvailability, writer: new KubeNodeClassClient(w.api), clock: systemClock, log,
  });
  const expiration = new CapacityBlockExpiration({ view: w.state, source: w.aws.capacityReservations, nodeClaims: w.nodeClaims, clock: systemClock, log });
  const demotion = new ReservedCapacityDemotion({ view: w.state, cloud: w.aws.cloudProviderFor('capacityreservation.capacitytype'), nodeClaims: w.nodeClaims, nodes: new KubeNodeWriter(w.api), log });
  return {
    controllers: { discovery, expiration, demotion },
    source: {
      reservationsOf: (name) => discovery.reservationsOf(name), availability: w.aws.reservationAvailability,
      offeringOf: (type, zone, available) => w.priced.reservedOffering(type.name, zone, available),
    },
    // As Karpenter with the gate on: an EC2NodeClass is Ready only once its reservations were discovered.
    readyConditions: [capacityReservationsReady],
  };
}

/** The NodeOverlays' status controller (gate NodeOverlay), for the lifecycle runner, woken when an overlay changes. */
export function nodeOverlayStatus(api: KubeRest, overlays: NodeOverlays | undefined, priced: PricedInstanceTypes): Watched | undefined {
  if (overlays === undefined) return undefined;
  return { store: overlays, controller: new NodeOverlayStatusController({ overlays, target: priced, writer: new KubeNodeOverlayStatusWriter(api), clock: systemClock }) };
}
