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

const network = loadInstanceTypes({ only: new Set(['c4.large', 'm5.large', 't3.large', 'c5n.18xlarge', 'p4d.24xlarge', 'g4ad.xlarge']) });

/** The types of `network` a class with this spec (and resolved group) can launch. */
function launchableOf(spec: Record<string, unknown>, group?: { id: string; strategy: string; partitionCount: number }): string[] {
  return instanceTypesForNodeClass(network, nodeClassCapacityOf(nodeClass('c', spec), group))
    .filter((type) => type.offerings.some((o) => o.available)).map((type) => type.name).sort();
}

const primary = { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' };

void t.test('listed interfaces need an ENA type with the cards, device slots and EFA devices they name, as Karpenter\'s check', (t) => {
  t.same(launchableOf({}), ['c4.large', 'c5n.18xlarge', 'g4ad.xlarge', 'm5.large', 'p4d.24xlarge', 't3.large']);
  t.same(launchableOf({ networkInterfaces: [] }), ['c5n.18xlarge', 'g4ad.xlarge', 'm5.large', 'p4d.24xlarge', 't3.large'], 'even an empty list rules out a type without ENA (c4)');
  t.same(launchableOf({ networkInterfaces: [primary, { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' }] }), ['c5n.18xlarge', 'p4d.24xlarge'], 'EFA-only needs EFA devices');
  t.same(launchableOf({ networkInterfaces: [primary, { networkCardIndex: 3, deviceIndex: 0, interfaceType: 'efa-only' }] }), ['p4d.24xlarge'], 'card 3 needs four cards');
  t.same(launchableOf({ networkInterfaces: [primary, { networkCardIndex: 0, deviceIndex: 3, interfaceType: 'interface' }] }), ['c5n.18xlarge', 'p4d.24xlarge'], 'device 3 needs four interfaces on the card (m5.large and t3.large have three)');
  const fiveEfa = [primary, ...[0, 1, 2, 3, 4].map((card) => ({ networkCardIndex: card, deviceIndex: 1, interfaceType: 'efa-only' }))];
  t.same(launchableOf({ networkInterfaces: fiveEfa }), [], 'more EFA-only interfaces than any type has EFA devices');
  t.end();
});

void t.test('a placement group keeps the types that support its strategy; one not resolved yet keeps none', (t) => {
  const selector = { placementGroupSelector: { name: 'pg' } };
  t.same(launchableOf(selector, { id: 'pg-1', strategy: 'cluster', partitionCount: 0 }), ['c4.large', 'c5n.18xlarge', 'm5.large', 'p4d.24xlarge'], 'burstable types cannot join a cluster group; g4ad is not described: none');
  t.same(launchableOf(selector, { id: 'pg-1', strategy: 'spread', partitionCount: 0 }), ['c4.large', 'c5n.18xlarge', 'm5.large', 'p4d.24xlarge', 't3.large']);
  t.same(launchableOf(selector), [], 'a selector with no group resolved launches nothing');
  t.same(launchableOf({}, { id: 'pg-1', strategy: 'cluster', partitionCount: 0 }), launchableOf({}), 'a group given for a class without a selector is not its');
  t.end();
});

void t.test('the class\'s types carry its placement group\'s id as a label', (t) => {
  const types = instanceTypesForNodeClass(network, nodeClassCapacityOf(nodeClass('c', { placementGroupSelector: { id: 'pg-1' } }), { id: 'pg-1', strategy: 'partition', partitionCount: 3 }));
  t.same([...new Set(types.map((x) => x.labels['karpenter.k8s.aws/placement-group-id']))], ['pg-1']);
  t.equal(types[0]?.labels['karpenter.k8s.aws/placement-group-partition'], undefined, 'the partition is per node, not per type');
  t.end();
});
