// Consolidation asks "the cluster without this node": a pod holding an allocated GPU needs a GPU wherever it goes.
import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import type { ResourceClaim } from '../../../domain/dra/resource-api.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { podRequests } from '../../../domain/pod-requests.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import { simulationInputFor, snapshotNodes } from '../../../provisioner/state/snapshot.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';
import { node, pod } from '../../extender/builders.js';

const types = loadInstanceTypes({ region: 'us-east-1' }).filter((ty) => /^(m7i|g5)\.(large|xlarge|2xlarge)$/.test(ty.name));

function trainer(): Pod {
  const base = pod({ name: 'trainer', nodeName: 'gpu-node' });
  return { ...base, metadata: { ...base.metadata, uid: 'trainer-uid' }, spec: { ...base.spec, resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one' }] }, status: { phase: 'Running', resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'trainer-gpu' }] } } as Pod;
}

const allocated: ResourceClaim = {
  metadata: { name: 'trainer-gpu', namespace: 'default' }, spec: {},
  status: { allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.nvidia.com', pool: 'gpu.nvidia.com/gpu-node', device: 'gpu-0' }] } }, reservedFor: [{ resource: 'pods', name: 'trainer', uid: 'trainer-uid' }] },
};

function cluster(): ReturnType<typeof stateWith> {
  const gpuNode = node('gpu-node', { labels: { 'node.kubernetes.io/instance-type': 'g5.xlarge' } });
  const state = stateWith({
    nodePools: [nodePool()], nodeClasses: [nodeClass()],
    nodes: [{ ...gpuNode, status: { ...gpuNode.status, allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'nvidia.com/gpu': '1' } } }, node('cpu-node', { cpu: '8', memory: '32Gi' })],
    pods: [trainer()],
  });
  state.upsertObject('resourceclaim', allocated);
  return state;
}

void t.test('a running pod counts the GPU its claim holds on its node', (t) => {
  const gpu = snapshotNodes(cluster()).find((n) => n.name === 'gpu-node');
  t.same(gpu?.pods.map((p) => podRequests(p)['nvidia.com/gpu']), [1]);
  t.end();
});

void t.test('without its GPU node, the pod is not moved onto the roomy CPU node: it needs a new GPU node', (t) => {
  const state = cluster();
  const result = simulate(simulationInputFor(state, { pods: [trainer()], instanceTypes: types, unavailable: new Set(), without: new Set(['gpu-node']) }));
  t.same(result.existing.filter((e) => e.pods.length > 0).map((e) => e.node), [], 'no existing node takes it');
  t.ok(result.nodeClaims.length === 1 && result.nodeClaims[0]?.instanceTypes.every((name) => name.startsWith('g5.')), `a GPU node is planned: ${result.nodeClaims.map((c) => c.instanceTypes.join(',')).join('; ')}`);
  t.end();
});

void t.test('with the DynamicResourceAllocation gate off, a pod\'s claims count for nothing, as if it had none', (t) => {
  const state = cluster();
  state.dra.enabled = false;
  t.same(snapshotNodes(state).find((n) => n.name === 'gpu-node')?.pods.map((p) => podRequests(p)['nvidia.com/gpu']), [undefined]);
  t.end();
});
