import type { MachineFacts } from '../../domain/instance-types/allocatable.js';

/**
 * Machine facts for a hand-made instance type: an amd64 box of this size with no ENI data, so a test that applies
 * an EC2NodeClass to it sees the class's overhead on the machine's own CPU and memory.
 */
export function handMachine(cpuMillis: number, memoryBytes: number): MachineFacts {
  return { vcpu: cpuMillis / 1000, memoryMiB: memoryBytes / 2 ** 20, arch: 'amd64', enis: 0, ipv4PerEni: 0, reservedEnis: 0, instanceStoreGB: null };
}
