import type { RepairPolicy } from '../../domain/cloud/repair-policy.js';

const minute = 60_000;

/**
 * The AWS provider's policies ([aws] pkg/cloudprovider/cloudprovider.go `RepairPolicies`): the kubelet's Ready
 * condition, and the conditions the EKS node monitoring agent reports (absent on nodes without the agent, so
 * they never match there).
 */
export const awsRepairPolicies: readonly RepairPolicy[] = [
  { conditionType: 'Ready', conditionStatus: 'False', tolerationMs: 30 * minute },
  { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationMs: 30 * minute },
  { conditionType: 'AcceleratedHardwareReady', conditionStatus: 'False', tolerationMs: 10 * minute },
  { conditionType: 'StorageReady', conditionStatus: 'False', tolerationMs: 30 * minute },
  { conditionType: 'NetworkingReady', conditionStatus: 'False', tolerationMs: 30 * minute },
  { conditionType: 'KernelReady', conditionStatus: 'False', tolerationMs: 30 * minute },
  { conditionType: 'ContainerRuntimeReady', conditionStatus: 'False', tolerationMs: 30 * minute },
];
