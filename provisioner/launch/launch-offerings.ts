import type { CapacityType, LaunchOffering } from '../../domain/cloud/offering.js';
import type { InstanceType, Offering } from '../../domain/instance-types/instance-type.js';
import { offeringKey } from '../../domain/instance-types/instance-type.js';
import type { NodeSelectorRequirementWithMinValues } from '../../domain/requirements/requirements.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { VirtualNodePlan } from '../index.js';
import { reservedPrice } from '../../domain/cloud/capacity-reservation.js';
import { allowedValues } from '../../domain/requirements/allowed-values.js';
import { withoutExoticTypes } from './exotic-types.js';

export interface LaunchChoice {
  readonly capacityType: CapacityType;
  readonly offerings: LaunchOffering[];
}

const efaResource = 'vpc.amazonaws.com/efa';

/**
 * What of a type picks its image, its kubelet and its EFA interfaces: architecture, GPUs, Neuron devices, the kubelet
 * the class sized it with, EFA devices (as the class sizes them, Karpenter's `it.Capacity[vpc.amazonaws.com/efa]`).
 */
function typeDevices(type: InstanceType): Pick<LaunchOffering, 'architecture' | 'gpuCount' | 'acceleratorCount' | 'kubelet' | 'efaInterfaces'> {
  const count = (key: string): number => Number(type.labels[key] ?? 0);
  const gpus = count(wellKnown.instanceGpuCount);
  const accelerators = count(wellKnown.instanceAcceleratorCount);
  const efa = type.capacity[efaResource] ?? 0;
  return {
    architecture: type.labels[wellKnown.arch] === 'arm64' ? 'arm64' : 'amd64',
    ...(gpus > 0 ? { gpuCount: gpus } : {}),
    ...(accelerators > 0 ? { acceleratorCount: accelerators } : {}),
    kubelet: type.kubelet,
    ...(efa > 0 ? { efaInterfaces: efa } : {}),
  };
}

/**
 * A plan given a reservation launches into it first (Karpenter's order: reserved, spot, on-demand); once EC2 has
 * refused it (ReservationCapacityExceeded marks the offering unavailable) the launch falls back to the plan's
 * other capacity types, in the reservation's zone.
 */
function reservedChoice(plan: VirtualNodePlan, catalog: ReadonlyMap<string, InstanceType>, unavailable: ReadonlySet<string>): LaunchChoice | undefined {
  const reservation = plan.capacityReservation;
  const name = plan.instanceTypes[0] ?? '';
  const type = catalog.get(name);
  if (reservation === undefined || type === undefined || plan.zone === undefined) return undefined;
  if (unavailable.has(offeringKey('reserved', name, plan.zone))) return undefined;
  const onDemand = type.offerings.find((o) => o.capacityType === 'on-demand')?.price;
  return { capacityType: 'reserved', offerings: [{ instanceType: name, zone: plan.zone, capacityType: 'reserved', price: reservedPrice(onDemand), reservation, ...typeDevices(type) }] };
}

/**
 * The offerings one launch may use: the plan's types in its zones and capacity types, minus what the
 * NodePool forbids, what just ran out of capacity and, while a generic type remains, the exotic ones (Karpenter's
 * exotic filter). Spot is chosen whenever the plan allows it and an offering exists (Karpenter's order); on-demand
 * otherwise.
 */
export function chooseOfferings(plan: VirtualNodePlan, poolRequirements: readonly NodeSelectorRequirementWithMinValues[], catalog: ReadonlyMap<string, InstanceType>, unavailable: ReadonlySet<string>): LaunchChoice {
  const reserved = reservedChoice(plan, catalog, unavailable);
  if (reserved !== undefined) return reserved;
  const all: LaunchOffering[] = [];
  const inPlan = (o: Offering): o is Offering & { capacityType: CapacityType } =>
    (plan.zone === undefined || o.zone === plan.zone)
    && (plan.capacityType === undefined || o.capacityType === plan.capacityType)
    && (o.capacityType === 'spot' || o.capacityType === 'on-demand');
  for (const name of plan.instanceTypes) {
    const type = catalog.get(name);
    if (type === undefined) continue;
    const devices = typeDevices(type);
    for (const o of type.offerings) {
      if (o.available && !unavailable.has(offeringKey(o.capacityType, name, o.zone)) && inPlan(o)) {
        all.push({ instanceType: name, zone: o.zone, capacityType: o.capacityType, price: o.price, ...devices, ...(o.priceOverlaid === true ? { priceOverlaid: true } : {}) });
      }
    }
  }
  const zones = new Set(allowedValues(poolRequirements, wellKnown.zone, [...new Set(all.map((o) => o.zone))]));
  const types = new Set(allowedValues(poolRequirements, wellKnown.capacityType, ['spot', 'on-demand']));
  const allowed = all.filter((o) => zones.has(o.zone) && types.has(o.capacityType));
  const kept = withoutExoticTypes(new Set(allowed.map((o) => o.instanceType)), catalog, poolRequirements);
  const usable = allowed.filter((o) => kept.has(o.instanceType));
  const capacityType: CapacityType = usable.some((o) => o.capacityType === 'spot') ? 'spot' : 'on-demand';
  return { capacityType, offerings: usable.filter((o) => o.capacityType === capacityType).sort((a, b) => a.price - b.price) };
}
