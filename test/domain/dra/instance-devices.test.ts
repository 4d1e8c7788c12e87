import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { devicesOfNode } from '../../../domain/dra/instance-devices.js';
import { virtualNodeSlices } from '../../../domain/dra/resource-slices.js';

const catalog = new Map(loadInstanceTypes({ region: 'us-east-1' }).map((type) => [type.name, type]));
const devicesOf = (name: string): ReturnType<typeof devicesOfNode> => {
  const type = catalog.get(name);
  if (type === undefined) throw new Error(`${name} is not in the catalog`);
  return devicesOfNode(type.labels, type.capacity);
};

void t.test('a g5.xlarge has one NVIDIA A10G, named and described as NVIDIA\'s DRA driver publishes it', (t) => {
  const [gpus, ...others] = devicesOf('g5.xlarge');
  t.equal(gpus?.driver, 'gpu.nvidia.com');
  t.same(gpus?.devices.map((d) => d.name), ['gpu-0']);
  t.match(gpus?.devices[0]?.attributes, { type: { string: 'gpu' }, brand: { string: 'Nvidia' }, productName: { string: 'NVIDIA A10G' }, architecture: { string: 'Ampere' }, cudaComputeCapability: { version: '8.6.0' }, index: { int: 0 } });
  t.same(gpus?.devices[0]?.capacity, { memory: { value: '22888Mi' } }, 'with the GPU\'s memory from the catalog');
  t.same(others, [], 'and nothing else');
  t.end();
});

void t.test('a p4d.24xlarge has eight GPUs and its EFA interfaces; a trn1.32xlarge its Neuron devices; an m5.large none', (t) => {
  const p4d = devicesOf('p4d.24xlarge');
  t.same(p4d.map((d) => [d.driver, d.devices.length]), [['gpu.nvidia.com', 8], ['dra.net', catalog.get('p4d.24xlarge')?.capacity['vpc.amazonaws.com/efa'] ?? -1]]);
  t.same(p4d[0]?.devices.map((d) => d.name).slice(-1), ['gpu-7']);
  const trn1 = devicesOf('trn1.32xlarge');
  t.same(trn1.find((d) => d.driver === 'neuron.aws.com')?.devices.length, catalog.get('trn1.32xlarge')?.capacity['aws.amazon.com/neuron']);
  t.same(devicesOf('m5.large'), []);
  t.end();
});

void t.test('a virtual node\'s slices are node-local, pooled under the node\'s name and owned by the Node', (t) => {
  const [slice] = virtualNodeSlices({ name: 'launchable-gpus-abc12', uid: 'u-1' }, devicesOf('g5.xlarge'));
  t.match(slice, {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice',
    metadata: { name: 'launchable-gpus-abc12-gpu-nvidia-com', labels: { 'nodesmith.io/virtual-node': 'launchable-gpus-abc12' }, ownerReferences: [{ kind: 'Node', name: 'launchable-gpus-abc12', uid: 'u-1' }] },
    spec: { driver: 'gpu.nvidia.com', nodeName: 'launchable-gpus-abc12', pool: { name: 'launchable-gpus-abc12', resourceSliceCount: 1 } },
  });
  t.end();
});
