import t from 'tap';
import { deviceMatches, parseSelector, type Clause } from '../../../domain/dra/device-selector.js';
import type { Device } from '../../../domain/dra/resource-api.js';

const a10g: Device = { name: 'gpu-0', attributes: { type: { string: 'gpu' }, productName: { string: 'NVIDIA A10G' }, index: { int: 0 }, 'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' } }, capacity: { memory: { value: '22888Mi' } } };

function clauses(expression: string): readonly Clause[] {
  const parsed = parseSelector(expression);
  if ('unsupported' in parsed) throw new Error(`unsupported: ${parsed.unsupported}`);
  return parsed.clauses;
}

const matching: readonly [string, boolean][] = [
  ["device.driver == 'gpu.nvidia.com'", true],
  ['device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu"', true],
  ["(device.driver == 'gpu.nvidia.com') && (device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A10G')", true],
  ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'", false],
  ["device.attributes['gpu.nvidia.com']['index'] == 0", true],
  ["device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'", true],
  ["device.attributes['gpu.nvidia.com'].missing == 'x'", false],
  ["device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0", true],
  ["device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", false],
  ['true', true],
];

void t.test('the DeviceClass forms the vendors use are evaluated exactly against a device', (t) => {
  for (const [expression, expected] of matching) t.equal(deviceMatches(clauses(expression), 'gpu.nvidia.com', a10g), expected, expression);
  t.notOk(deviceMatches(clauses("device.driver == 'neuron.aws.com'"), 'gpu.nvidia.com', a10g), 'another driver\'s class does not match');
  t.end();
});

void t.test('anything else is refused with the clause nodesmith does not evaluate, never guessed', (t) => {
  t.same(parseSelector("device.driver == 'a' || device.driver == 'b'"), { unsupported: "device.driver == 'a' || device.driver == 'b'" });
  t.same(parseSelector("device.driver == 'gpu.nvidia.com' && !device.attributes['gpu.nvidia.com'].mig"), { unsupported: "!device.attributes['gpu.nvidia.com'].mig" });
  t.same(parseSelector("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('8.0.0'))"), { unsupported: "device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('8.0.0'))" });
  t.same(parseSelector("device.driver == 'a && b'"), { clauses: [{ kind: 'driver', value: 'a && b' }] }, '&& inside a string is not a conjunction');
  t.end();
});
