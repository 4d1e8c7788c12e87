import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { offeringKey } from '../../../domain/instance-types/instance-type.js';
import { applyNodeOverlays } from '../../../domain/instance-types/node-overlay.js';
import { chooseOfferings } from '../../../provisioner/launch/launch-offerings.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';

const catalog = new Map(loadInstanceTypes({ only: new Set(['m5.large', 'm6g.large']) }).map((type) => [type.name, type]));

function plan(overrides: Partial<VirtualNodePlan> = {}): VirtualNodePlan {
  return { nodeName: 'launchable-default-abcde', nodePool: 'default', instanceTypes: ['m5.large', 'm6g.large'], pricePerHour: 0.1, assignedPods: [], room: {}, ...overrides };
}

const places = (choice: ReturnType<typeof chooseOfferings>): string[] => choice.offerings.map((o) => `${o.instanceType}@${o.zone}`).sort();

void t.test('spot is chosen whenever the plan allows it, every planned type in every zone, cheapest first', (t) => {
  const choice = chooseOfferings(plan(), [], catalog, new Set());
  t.equal(choice.capacityType, 'spot');
  t.equal(choice.offerings.length, 6);
  t.same(choice.offerings.map((o) => o.price), [...choice.offerings.map((o) => o.price)].sort((a, b) => a - b));
  t.same(new Set(choice.offerings.map((o) => o.architecture)), new Set(['amd64', 'arm64']));
  t.end();
});

void t.test("the plan's zone and capacity type narrow the offerings", (t) => {
  const choice = chooseOfferings(plan({ zone: 'us-east-1b', capacityType: 'on-demand' }), [], catalog, new Set());
  t.equal(choice.capacityType, 'on-demand');
  t.same(places(choice), ['m5.large@us-east-1b', 'm6g.large@us-east-1b']);
  t.end();
});

void t.test("the NodePool's requirements and the unavailable offerings take the rest away", (t) => {
  const requirements = [
    { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-east-1a'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
  ];
  const unavailable = new Set([offeringKey('on-demand', 'm5.large', 'us-east-1c')]);
  const choice = chooseOfferings(plan(), requirements, catalog, unavailable);
  t.equal(choice.capacityType, 'on-demand');
  t.same(places(choice), ['m5.large@us-east-1b', 'm6g.large@us-east-1b', 'm6g.large@us-east-1c']);
  t.end();
});

void t.test('an offering a NodeOverlay priced keeps its price and says so, so the launch asks EC2 to follow it', (t) => {
  const overlaid = new Map(applyNodeOverlays([...catalog.values()], [{ metadata: { name: 'sp' }, spec: { requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6g.large'] }], price: '0.001' } }]).types.map((type) => [type.name, type]));
  const choice = chooseOfferings(plan({ capacityType: 'on-demand' }), [], overlaid, new Set());
  t.same(choice.offerings.filter((o) => o.priceOverlaid === true).map((o) => `${o.instanceType}@${String(o.price)}`), ['m6g.large@0.001', 'm6g.large@0.001', 'm6g.large@0.001']);
  t.notOk(choice.offerings.some((o) => o.instanceType === 'm5.large' && 'priceOverlaid' in o));
  t.end();
});

void t.test('a launch that may use a generic type leaves out GPU, accelerator and metal types, as Karpenter does', (t) => {
  const mixed = new Map(loadInstanceTypes({ only: new Set(['m5.large', 'g4dn.xlarge', 'inf2.xlarge', 'm5.metal']) }).map((type) => [type.name, type]));
  const all = ['m5.large', 'g4dn.xlarge', 'inf2.xlarge', 'm5.metal'];
  const choice = chooseOfferings(plan({ instanceTypes: all, capacityType: 'on-demand' }), [], mixed, new Set());
  t.same([...new Set(choice.offerings.map((o) => o.instanceType))], ['m5.large'], 'only the generic type');
  const onlyExotic = chooseOfferings(plan({ instanceTypes: ['g4dn.xlarge', 'inf2.xlarge'], capacityType: 'on-demand' }), [], mixed, new Set());
  t.same(new Set(onlyExotic.offerings.map((o) => o.instanceType)), new Set(['g4dn.xlarge', 'inf2.xlarge']), 'exotic types when nothing else is planned');
  const withMinValues = [{ key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 2 }];
  const kept = chooseOfferings(plan({ instanceTypes: all, capacityType: 'on-demand' }), withMinValues, mixed, new Set());
  t.equal(new Set(kept.offerings.map((o) => o.instanceType)).size, 4, 'every type when the NodePool asks for minValues');
  t.end();
});
