import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { instanceTypesForNodeClass, nodeClassCapacityOf } from '../../../domain/instance-types/node-class-types.js';
import { nodeClass } from '../../fakes/provisioning-builders.js';

// Karpenter's instance-type compatibility checks (pkg/providers/instancetype/compatibility): a type the EC2NodeClass
// cannot launch is dropped before the scheduler sees it. nodesmith keeps it in the class's table with no offering.

const catalog = loadInstanceTypes({ only: new Set(['m7i-flex.large', 'c7i.large', 'm5.large', 't2.large', 'm5.metal']) });

/** The types a class with this spec can launch: those with an available offering. */
function launchable(spec: Record<string, unknown>): string[] {
  return instanceTypesForNodeClass(catalog, nodeClassCapacityOf(nodeClass('c', spec)))
    .filter((type) => type.offerings.some((o) => o.available)).map((type) => type.name).sort();
}

void t.test('nested virtualization enabled leaves only the types whose processor offers it, as Karpenter\'s compatibility check', (t) => {
  t.same(launchable({ cpuOptions: { nestedVirtualization: 'enabled' } }), ['c7i.large', 'm7i-flex.large']);
  t.same(launchable({ cpuOptions: { nestedVirtualization: 'disabled' } }), launchable({}), 'disabled asks nothing of the processor');
  t.same(launchable({}), ['c7i.large', 'm5.large', 'm5.metal', 'm7i-flex.large', 't2.large']);
  t.end();
});

void t.test('connection tracking leaves only Nitro types: a Xen type and a bare-metal type (no hypervisor) cannot take it', (t) => {
  t.same(launchable({ connectionTracking: { udpTimeout: 45 } }), ['c7i.large', 'm5.large', 'm7i-flex.large']);
  t.same(launchable({ connectionTracking: { udpTimeout: 45 }, cpuOptions: { nestedVirtualization: 'enabled' } }), ['c7i.large', 'm7i-flex.large'], 'both checks apply');
  t.end();
});

void t.test('a type the class cannot launch keeps its place, size and prices: only its offerings go unavailable', (t) => {
  const types = instanceTypesForNodeClass(catalog, nodeClassCapacityOf(nodeClass('c', { connectionTracking: { udpTimeout: 45 } })));
  t.same(types.map((x) => x.name), catalog.map((x) => x.name), 'same order');
  const xen = types.find((x) => x.name === 't2.large');
  t.same(xen?.offerings.map((o) => o.price), catalog.find((x) => x.name === 't2.large')?.offerings.map((o) => o.price));
  t.end();
});

void t.test('ipPrefixCount changes no type\'s pods: Karpenter v1.15 keeps the ENI-limited count and only sets the prefixes at launch', (t) => {
  const pods = (spec: Record<string, unknown>): number | undefined =>
    instanceTypesForNodeClass(catalog, nodeClassCapacityOf(nodeClass('c', spec))).find((x) => x.name === 'm5.large')?.capacity['pods'];
  t.equal(pods({ ipPrefixCount: 2 }), 29, '3 ENIs × (10 − 1) + 2, as without prefixes');
  t.equal(pods({ ipPrefixCount: 2, kubelet: { maxPods: 110 } }), 110, 'kubelet.maxPods is how a class raises it, as in Karpenter');
  t.end();
});
