import { Gauge, type Registry } from 'prom-client';
import { offeringKey, type InstanceType } from '../../domain/instance-types/instance-type.js';
import { labels } from '../../domain/well-known-labels.js';

/** What the instance-type gauges read: the priced catalog and the insufficient-capacity cache, at scrape time. */
export interface InstanceTypeMetricsSource {
  instanceTypes(): readonly InstanceType[];
  unavailableOfferings(): ReadonlySet<string>;
}

const offeringLabels = ['instance_type', 'capacity_type', 'zone'] as const;

/**
 * EC2's own figures, as Karpenter reports them (DefaultVCpus, SizeInMiB): the type's instance-cpu and instance-memory
 * labels. Its capacity would not do: memory there is less the VM overhead and, on arm64, 64 MiB.
 */
function vcpus(type: InstanceType): number {
  return Number(type.labels[labels.instanceCpu] ?? (type.capacity['cpu'] ?? 0) / 1000);
}
function memoryBytes(type: InstanceType): number {
  const mib = type.labels[labels.instanceMemory];
  return mib === undefined ? (type.capacity['memory'] ?? 0) : Number(mib) * 1024 * 1024;
}

/**
 * The AWS provider's instance-type gauges (pkg/controllers/metrics and pkg/providers/instancetype metrics.go), with
 * Karpenter's names and labels: each offering's hourly price estimate and availability (1 when it has a price and no
 * insufficient-capacity error is cached for it), and each type's vCPUs and memory. Karpenter lists the types of each
 * NodePool's EC2NodeClass; nodesmith's catalog is the region's, so every type the planner may choose from is here.
 */
export function registerInstanceTypeMetrics(registry: Registry, source: InstanceTypeMetricsSource): void {
  const registers = [registry];
  new Gauge({ name: 'nodesmith_cloudprovider_instance_type_offering_available', help: 'Instance type offering availability, based on instance type, capacity type, and zone', labelNames: offeringLabels, registers, collect(this: Gauge<(typeof offeringLabels)[number]>) {
    this.reset();
    const unavailable = source.unavailableOfferings();
    for (const type of source.instanceTypes()) {
      for (const o of type.offerings) {
        const available = o.available && !unavailable.has(offeringKey(o.capacityType, type.name, o.zone));
        this.set({ instance_type: type.name, capacity_type: o.capacityType, zone: o.zone }, available ? 1 : 0);
      }
    }
  } });
  new Gauge({ name: 'nodesmith_cloudprovider_instance_type_offering_price_estimate', help: 'Instance type offering estimated hourly price used when making informed decisions on node cost calculation, based on instance type, capacity type, and zone.', labelNames: offeringLabels, registers, collect(this: Gauge<(typeof offeringLabels)[number]>) {
    this.reset();
    for (const type of source.instanceTypes()) for (const o of type.offerings) this.set({ instance_type: type.name, capacity_type: o.capacityType, zone: o.zone }, o.price);
  } });
  new Gauge({ name: 'nodesmith_cloudprovider_instance_type_cpu_cores', help: 'VCPUs cores for a given instance type.', labelNames: ['instance_type'] as const, registers, collect(this: Gauge<'instance_type'>) {
    this.reset();
    for (const type of source.instanceTypes()) this.set({ instance_type: type.name }, vcpus(type));
  } });
  new Gauge({ name: 'nodesmith_cloudprovider_instance_type_memory_bytes', help: 'Memory, in bytes, for a given instance type.', labelNames: ['instance_type'] as const, registers, collect(this: Gauge<'instance_type'>) {
    this.reset();
    for (const type of source.instanceTypes()) this.set({ instance_type: type.name }, memoryBytes(type));
  } });
}
