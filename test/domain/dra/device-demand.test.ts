import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { deviceDemand, deviceRequests, type DraLookup } from '../../../domain/dra/device-demand.js';
import { allocatedDevices, typesWithDevices, withDeviceNeeds } from '../../../domain/dra/device-pod.js';
import type { DeviceClass, ResourceClaim, ResourceClaimSpec, ResourceClaimTemplate } from '../../../domain/dra/resource-api.js';
import { podRequests } from '../../../domain/pod-requests.js';

const gpuClass: DeviceClass = { metadata: { name: 'gpu.nvidia.com' }, spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'" } }] } };
const anyClass: DeviceClass = { metadata: { name: 'anything' }, spec: { selectors: [{ cel: { expression: 'true' } }] } };

function lookup(objects: { claims?: ResourceClaim[]; templates?: ResourceClaimTemplate[] } = {}): DraLookup {
  return {
    claim: (ns, name) => objects.claims?.find((c) => c.metadata.namespace === ns && c.metadata.name === name),
    template: (ns, name) => objects.templates?.find((x) => x.metadata.namespace === ns && x.metadata.name === name),
    deviceClass: (name) => [gpuClass, anyClass].find((c) => c.metadata.name === name),
  };
}

const template = (name: string, spec: ResourceClaimSpec): ResourceClaimTemplate => ({ metadata: { name, namespace: 'ml' }, spec: { spec } });
const gpus = (count: number, selectors: string[] = []): ResourceClaimSpec => ({ devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count, selectors: selectors.map((expression) => ({ cel: { expression } })) } }] } });

function podWith(claims: { name: string; resourceClaimTemplateName?: string; resourceClaimName?: string }[], generated: { name: string; resourceClaimName: string }[] = []): Pod {
  const pod = { metadata: { name: 'trainer', namespace: 'ml', uid: 'pod-1' }, spec: { containers: [{ name: 'main', resources: { requests: { cpu: '1' } } }], resourceClaims: claims }, status: { resourceClaimStatuses: generated } };
  return pod as Pod;
}

const types = loadInstanceTypes({ region: 'us-east-1' });

void t.test('a pod\'s template asks for two GPUs: the planner counts them as nvidia.com/gpu on the pod', (t) => {
  const demand = deviceDemand(podWith([{ name: 'gpu', resourceClaimTemplateName: 'two' }]), lookup({ templates: [template('two', gpus(2))] }));
  if (demand.kind !== 'devices') throw new Error(JSON.stringify(demand));
  t.same(deviceRequests(demand.needs), { 'nvidia.com/gpu': 2 });
  const planned = withDeviceNeeds(podWith([]), demand.needs, types);
  t.equal(planned === undefined ? undefined : podRequests(planned)['nvidia.com/gpu'], 2, 'carried in the pod\'s overhead, which every resource sum adds');
  t.equal(planned?.spec.affinity, undefined, 'a class that selects by driver only holds the pod to no instance type: the count does');
  t.end();
});

void t.test('a request that selects a GPU model holds the pod to the instance types whose devices satisfy it', (t) => {
  const demand = deviceDemand(podWith([{ name: 'gpu', resourceClaimTemplateName: 'a10g' }]), lookup({ templates: [template('a10g', gpus(4, ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A10G'"]))] }));
  if (demand.kind !== 'devices') throw new Error(JSON.stringify(demand));
  const fitting = typesWithDevices(demand.needs, types);
  t.ok(fitting.length > 0 && fitting.every((name) => name.startsWith('g5.')), `only g5 types have four A10Gs: ${fitting.join(', ')}`);
  t.notOk(fitting.includes('g5.xlarge'), 'not the one-GPU g5.xlarge');
  const planned = withDeviceNeeds(podWith([]), demand.needs, types);
  t.same(planned?.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: fitting }] }]);
  t.equal(withDeviceNeeds(podWith([]), demand.needs, types.filter((ty) => !ty.name.startsWith('g5.'))), undefined, 'no type has them: nothing to plan');
  t.end();
});

void t.test('a claim already allocated adds no need, and its devices are counted on the first pod it is reserved for', (t) => {
  const claim: ResourceClaim = { metadata: { name: 'trainer-gpu-x', namespace: 'ml' }, spec: gpus(1), status: { allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.nvidia.com', pool: 'n1', device: 'gpu-0' }] } }, reservedFor: [{ resource: 'pods', name: 'trainer', uid: 'pod-1' }] } };
  const pod = podWith([{ name: 'gpu', resourceClaimTemplateName: 'one' }], [{ name: 'gpu', resourceClaimName: 'trainer-gpu-x' }]);
  t.same(deviceDemand(pod, lookup({ claims: [claim] })), { kind: 'none' });
  t.same(allocatedDevices(pod, lookup({ claims: [claim] })), { 'nvidia.com/gpu': 1 });
  const other = { ...pod, metadata: { ...pod.metadata, uid: 'pod-2' } };
  t.same(allocatedDevices(other, lookup({ claims: [claim] })), {}, 'a second pod sharing the claim holds no second GPU');
  t.end();
});

const refusals: readonly [string, ResourceClaimSpec | undefined, RegExp][] = [
  ['the template is missing', undefined, /ResourceClaimTemplate ml\/t not found/],
  ['allocationMode All', { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', allocationMode: 'All' } }] } }, /allocationMode All is not supported/],
  ['firstAvailable', { devices: { requests: [{ name: 'gpu', firstAvailable: [{}] }] } }, /firstAvailable is not supported/],
  ['a missing DeviceClass', { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'nope' } }] } }, /DeviceClass nope not found/],
  ['a class that names no driver', { devices: { requests: [{ name: 'x', exactly: { deviceClassName: 'anything' } }] } }, /must select exactly one driver/],
  ['a selector with ||', gpus(1, ["device.attributes['gpu.nvidia.com'].productName == 'A' || true"]), /is not one nodesmith evaluates/],
  ['constraints', { devices: { requests: gpus(1).devices?.requests ?? [], constraints: [{ matchAttribute: 'x' }] } }, /constraints \(matchAttribute\) are not supported/],
];

void t.test('claims nodesmith cannot plan exactly are refused with the reason, never planned on a guess', (t) => {
  for (const [what, spec, reason] of refusals) {
    const demand = deviceDemand(podWith([{ name: 'gpu', resourceClaimTemplateName: 't' }]), lookup({ templates: spec === undefined ? [] : [template('t', spec)] }));
    t.match(demand, { kind: 'refused', reason }, what);
  }
  t.same(deviceDemand(podWith([]), lookup()), { kind: 'none' }, 'a pod without claims asks for nothing');
  t.end();
});
