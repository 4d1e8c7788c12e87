// Karpenter's fake.InstanceTypes(n) (pkg/cloudprovider/fake/instancetype.go): type i has i+1 vCPU, 2(i+1) GiB and
// 10(i+1) pods, priced 0.1 $/vCPU + 0.1 $/GB (PriceFromResources), offered spot and on-demand in three zones at
// that price. No overhead is modelled: allocatable equals capacity.
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { handMachine } from '../support/hand-machine.js';

export const syntheticZones = ['test-zone-1', 'test-zone-2', 'test-zone-3'];

/** The hourly price Karpenter's fake gives CPU (millicores) and memory (bytes). */
export function syntheticPrice(cpuMillis: number, memoryBytes: number): number {
  return 0.1 * (cpuMillis / 1000) + 0.1 * (memoryBytes / 1e9);
}

/** `count` synthetic instance types, smallest first. */
export function syntheticInstanceTypes(count: number): InstanceType[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `fake-it-${i}`;
    const capacity = { cpu: (i + 1) * 1000, memory: (i + 1) * 2 * 2 ** 30, pods: (i + 1) * 10 };
    const price = syntheticPrice(capacity.cpu, capacity.memory);
    const offerings = syntheticZones.flatMap((zone) => ['spot', 'on-demand'].map((capacityType) => ({ zone, capacityType, price, available: true })));
    return {
      name,
      labels: { 'node.kubernetes.io/instance-type': name, 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
      capacity, overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} }, allocatable: capacity, kubelet: { maxPods: capacity.pods }, offerings,
      machine: handMachine(capacity.cpu, capacity.memory),
    };
  });
}
