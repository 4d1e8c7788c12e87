import t from 'tap';
import { allocatedDeviceIds, allocatedNode, handedOverAllocation } from '../../../domain/dra/claim-handover.js';
import type { AllocationResult, ResourceSlice } from '../../../domain/dra/resource-api.js';

const onVirtual: AllocationResult = {
  devices: { results: [{ request: 'gpu', driver: 'gpu.nvidia.com', pool: 'launchable-a', device: 'gpu-0' }] },
  nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['launchable-a'] }] }] },
};

function slice(node: string, devices: string[]): ResourceSlice {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: `${node}-gpu` }, spec: { driver: 'gpu.nvidia.com', nodeName: node, pool: { name: `gpu.nvidia.com/${node}`, generation: 0, resourceSliceCount: 1 }, devices: devices.map((name) => ({ name })) } };
}

void t.test('a claim allocated on a virtual node moves to the same-named device of the real node, pinned there', (t) => {
  t.equal(allocatedNode(onVirtual), 'launchable-a');
  const moved = handedOverAllocation(onVirtual, 'ip-10-0-0-1', [slice('ip-10-0-0-1', ['gpu-1', 'gpu-0'])], new Set());
  t.same(moved?.devices?.results, [{ request: 'gpu', driver: 'gpu.nvidia.com', pool: 'gpu.nvidia.com/ip-10-0-0-1', device: 'gpu-0' }]);
  t.equal(allocatedNode(moved), 'ip-10-0-0-1');
  t.end();
});

void t.test('a device another claim holds is never given; with none free, or no slice yet, the handover waits', (t) => {
  const taken = allocatedDeviceIds([{ metadata: {}, spec: {}, status: { allocation: { devices: { results: [{ request: 'g', driver: 'gpu.nvidia.com', pool: 'gpu.nvidia.com/n', device: 'gpu-0' }] } } } }]);
  t.same(handedOverAllocation(onVirtual, 'n', [slice('n', ['gpu-0', 'gpu-1'])], taken)?.devices?.results?.map((r) => r.device), ['gpu-1']);
  t.equal(handedOverAllocation(onVirtual, 'n', [slice('n', ['gpu-0'])], taken), undefined);
  t.equal(handedOverAllocation(onVirtual, 'n', [slice('other', ['gpu-0'])], new Set()), undefined, 'another node\'s slice is not this node\'s device');
  t.end();
});
