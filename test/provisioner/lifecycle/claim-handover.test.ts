// A claim kube-scheduler allocated on a virtual node's GPU moves to the real node's GPU once its driver publishes it.
import t from 'tap';
import type { AllocationResult, ResourceClaim, ResourceSlice } from '../../../domain/dra/resource-api.js';
import { ClaimHandover } from '../../../provisioner/lifecycle/claim-handover.js';
import type { ResourceClaimWriter } from '../../../provisioner/ports/resource-claims.js';
import { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { node, pod, virtualNode } from '../../extender/builders.js';

const pinned = (nodeName: string): AllocationResult['nodeSelector'] => ({ nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] });

function claim(name: string, podName: string, on: { pool: string; device: string; node: string }): ResourceClaim {
  return {
    metadata: { name, namespace: 'default' }, spec: {},
    status: { allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.nvidia.com', pool: on.pool, device: on.device }] }, nodeSelector: pinned(on.node) }, reservedFor: [{ resource: 'pods', name: podName, uid: `${podName}-uid` }] },
  };
}

function gpuSlice(nodeName: string, devices: string[]): ResourceSlice {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: `${nodeName}-gpus` }, spec: { driver: 'gpu.nvidia.com', nodeName, pool: { name: `gpu.nvidia.com/${nodeName}`, generation: 0, resourceSliceCount: 1 }, devices: devices.map((name) => ({ name })) } };
}

class FakeClaims implements ResourceClaimWriter {
  readonly slices: ResourceSlice[] = [];
  readonly moved: { claim: string; allocation: AllocationResult }[] = [];
  slicesOn(nodeName: string): Promise<ResourceSlice[]> {
    return Promise.resolve(this.slices.filter((s) => s.spec.nodeName === nodeName));
  }
  reallocate(c: ResourceClaim, allocation: AllocationResult): Promise<void> {
    this.moved.push({ claim: c.metadata.name ?? '', allocation });
    return Promise.resolve();
  }
}

function cluster(): ClusterState {
  const state = new ClusterState();
  state.upsertNode(node('ip-10-0-0-1'));
  state.upsertNode(virtualNode('launchable-b'));
  state.upsertPod(pod({ name: 'trainer', nodeName: 'ip-10-0-0-1' }));
  state.upsertPod(pod({ name: 'other', nodeName: 'ip-10-0-0-1' }));
  state.upsertPod(pod({ name: 'binding', nodeName: 'launchable-b' }));
  return state;
}

/** One handover pass over these claims, the real node's driver having published gpu-0 and gpu-1: what it moved. */
async function handOver(claims: readonly ResourceClaim[]): Promise<FakeClaims['moved']> {
  const state = cluster();
  for (const c of claims) state.upsertObject('resourceclaim', c);
  const writer = new FakeClaims();
  writer.slices.push(gpuSlice('ip-10-0-0-1', ['gpu-0', 'gpu-1']));
  await new ClaimHandover({ state, claims: writer }).reconcile();
  return writer.moved;
}

void t.test('a claim pinned to the virtual node its pod left is handed over to the real node\'s GPU, once published', async (t) => {
  const state = cluster();
  state.upsertObject('resourceclaim', claim('trainer-gpu', 'trainer', { pool: 'launchable-a', device: 'gpu-0', node: 'launchable-a' }));
  const claims = new FakeClaims();
  const handover = new ClaimHandover({ state, claims });
  await handover.reconcile();
  t.same(claims.moved, [], 'nothing to move to while the real node\'s driver has published nothing');
  claims.slices.push(gpuSlice('ip-10-0-0-1', ['gpu-0']));
  await handover.reconcile();
  t.same(claims.moved.map((m) => [m.claim, m.allocation.devices?.results?.map((r) => `${r.pool}/${r.device}`)]), [['trainer-gpu', ['gpu.nvidia.com/ip-10-0-0-1/gpu-0']]]);
  t.end();
});

void t.test('claims already on their pod\'s node, and pods still binding through a virtual node, are left alone', async (t) => {
  const moved = await handOver([
    claim('settled', 'other', { pool: 'gpu.nvidia.com/ip-10-0-0-1', device: 'gpu-1', node: 'ip-10-0-0-1' }),
    claim('binding-gpu', 'binding', { pool: 'launchable-b', device: 'gpu-0', node: 'launchable-b' }),
  ]);
  t.same(moved, []);
  t.end();
});

void t.test('two claims handed over in one pass never get the same GPU, nor one another claim holds', async (t) => {
  const moved = await handOver([
    claim('settled', 'other', { pool: 'gpu.nvidia.com/ip-10-0-0-1', device: 'gpu-0', node: 'ip-10-0-0-1' }),
    claim('trainer-gpu', 'trainer', { pool: 'launchable-a', device: 'gpu-0', node: 'launchable-a' }),
  ]);
  t.same(moved.map((m) => m.allocation.devices?.results?.[0]?.device), ['gpu-1'], 'gpu-0 is the settled claim\'s');
  t.end();
});
