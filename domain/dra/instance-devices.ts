import { labels as wellKnown } from '../well-known-labels.js';
import type { Device, DeviceAttribute } from './resource-api.js';

/** The DRA drivers whose devices an instance type is known to have, by the name each publishes its slices under. */
export const draDrivers = {
  /** NVIDIA's DRA driver for GPUs (k8s-dra-driver-gpu). */
  nvidiaGpu: 'gpu.nvidia.com',
  /** AWS's Neuron DRA driver (Trainium, Inferentia). */
  neuron: 'neuron.aws.com',
  /** DRANET, the network DRA driver EKS uses for EFA interfaces. */
  efa: 'dra.net',
} as const;

/**
 * The extended resource each driver's devices are counted under in the instance-type catalog: a device claim is
 * packed as that many of it, so the planner's resource fit picks types that have the devices.
 */
export const deviceResourceOf: Readonly<Record<string, string>> = {
  [draDrivers.nvidiaGpu]: 'nvidia.com/gpu',
  [draDrivers.neuron]: 'aws.amazon.com/neuron',
  [draDrivers.efa]: 'vpc.amazonaws.com/efa',
};

/** The devices one driver publishes on a node. */
export interface DriverDevices {
  readonly driver: string;
  readonly devices: readonly Device[];
}

/**
 * Facts the NVIDIA driver reports per GPU model (NVML's product name, architecture and CUDA compute capability),
 * keyed by the catalog's `karpenter.k8s.aws/instance-gpu-name`. A model missing here still gets its devices,
 * with the attributes that do not depend on the model.
 */
const gpuModels: Readonly<Record<string, { readonly architecture: string; readonly cuda: string; readonly productName?: string }>> = {
  t4: { architecture: 'Turing', cuda: '7.5.0', productName: 'Tesla T4' },
  t4g: { architecture: 'Turing', cuda: '7.5.0', productName: 'NVIDIA T4G' },
  v100: { architecture: 'Volta', cuda: '7.0.0', productName: 'Tesla V100-SXM2-32GB' },
  a10g: { architecture: 'Ampere', cuda: '8.6.0', productName: 'NVIDIA A10G' },
  a100: { architecture: 'Ampere', cuda: '8.0.0' },
  l4: { architecture: 'Ada Lovelace', cuda: '8.9.0', productName: 'NVIDIA L4' },
  l40s: { architecture: 'Ada Lovelace', cuda: '8.9.0', productName: 'NVIDIA L40S' },
  h100: { architecture: 'Hopper', cuda: '9.0.0', productName: 'NVIDIA H100 80GB HBM3' },
  h200: { architecture: 'Hopper', cuda: '9.0.0', productName: 'NVIDIA H200' },
  b200: { architecture: 'Blackwell', cuda: '10.0.0', productName: 'NVIDIA B200' },
  b300: { architecture: 'Blackwell', cuda: '10.3.0', productName: 'NVIDIA B300 SXM6 AC' },
};

const str = (value: string): DeviceAttribute => ({ string: value });

function countOf(capacity: Readonly<Record<string, number>>, resource: string): number {
  return Math.max(0, Math.floor(capacity[resource] ?? 0));
}

function nvidiaGpus(nodeLabels: Readonly<Record<string, string>>, count: number): DriverDevices {
  const model = gpuModels[nodeLabels[wellKnown.instanceGpuName] ?? ''];
  const memoryMiB = Number(nodeLabels[wellKnown.instanceGpuMemory] ?? '0');
  const attributes: Record<string, DeviceAttribute> = { type: str('gpu'), brand: str('Nvidia') };
  if (model !== undefined) {
    attributes['architecture'] = str(model.architecture);
    attributes['cudaComputeCapability'] = { version: model.cuda };
    if (model.productName !== undefined) attributes['productName'] = str(model.productName);
  }
  const devices = Array.from({ length: count }, (_, index): Device => ({
    name: `gpu-${String(index)}`,
    attributes: { ...attributes, index: { int: index }, minor: { int: index } },
    ...(memoryMiB > 0 ? { capacity: { memory: { value: `${String(memoryMiB)}Mi` } } } : {}),
  }));
  return { driver: draDrivers.nvidiaGpu, devices };
}

function neuronDevices(nodeLabels: Readonly<Record<string, string>>, count: number): DriverDevices {
  const instanceType = nodeLabels[wellKnown.instanceType] ?? '';
  const devices = Array.from({ length: count }, (_, index): Device => ({
    name: `neuron-device-${String(index)}`,
    attributes: { deviceId: { int: index }, instanceType: str(instanceType) },
  }));
  return { driver: draDrivers.neuron, devices };
}

function efaDevices(count: number): DriverDevices {
  const attributes = { pciDevice: str('Elastic Fabric Adapter (EFA)'), pciVendor: str('Amazon.com, Inc.'), rdma: { bool: true } };
  return { driver: draDrivers.efa, devices: Array.from({ length: count }, (_, index): Device => ({ name: `efa-${String(index)}`, attributes })) };
}

/**
 * The devices the vendors' DRA drivers would publish on a node of this type, from the node's well-known labels and
 * capacity (the catalog's GPU, Neuron and EFA counts): NVIDIA GPUs as `gpu-<index>`, Neuron devices as
 * `neuron-device-<index>`, EFA interfaces as `efa-<index>`. Drivers with no device on the type are left out.
 */
export function devicesOfNode(nodeLabels: Readonly<Record<string, string>>, capacity: Readonly<Record<string, number>>): DriverDevices[] {
  const out: DriverDevices[] = [];
  const gpus = countOf(capacity, 'nvidia.com/gpu');
  if (gpus > 0) out.push(nvidiaGpus(nodeLabels, gpus));
  const neuron = countOf(capacity, 'aws.amazon.com/neuron');
  if (neuron > 0) out.push(neuronDevices(nodeLabels, neuron));
  const efa = countOf(capacity, 'vpc.amazonaws.com/efa');
  if (efa > 0) out.push(efaDevices(efa));
  return out;
}
