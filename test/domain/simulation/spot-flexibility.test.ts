import t, { type Test } from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { podAnnotations } from '../../../domain/product-keys.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { PlannedNodeClaim, SimulationInput } from '../../../domain/simulation/simulation-input.js';
import { spotLaunchTypes } from '../../../domain/simulation/spot-flexibility.js';
import { checkPlan } from '../../support/validate-plan.js';
import { input, nodePool, pods, smallCatalog } from './fixtures.js';

const capacity = (values: string[], limits?: Record<string, string>): SimulationInput['nodePools'][number] =>
  nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values }], ...(limits === undefined ? {} : { limits }) });

function planned(t: Test, pending: Pod[], values: string[], options: { catalog?: readonly InstanceType[]; limits?: Record<string, string> } = {}): { plan: SimulationInput; claims: readonly PlannedNodeClaim[] } {
  const plan = input(pending, { nodePools: [capacity(values, options.limits)], instanceTypes: options.catalog ?? smallCatalog });
  const result = simulate(plan);
  t.same(checkPlan(plan, result), [], 'every option of every claim holds its pods (the independent validator)');
  t.same(result.unschedulable, []);
  return { plan, claims: result.nodeClaims };
}

function typeOf(name: string, catalog: readonly InstanceType[] = smallCatalog): InstanceType {
  const type = catalog.find((c) => c.name === name);
  if (type === undefined) throw new Error(`no type ${name} in the catalog`);
  return type;
}

const cheapest = (type: InstanceType, capacityType: string): number =>
  Math.min(...type.offerings.filter((o) => o.capacityType === capacityType && o.available).map((o) => o.price));

void t.test('a spot claim sized to one type offers EC2 every type at least as large, cheapest first, and keeps its price, room and labels', (t) => {
  const pending = pods('web', 3, { cpu: '500m', memory: '512Mi' });
  const [onDemand] = planned(t, pending, ['on-demand']).claims;
  const [spot] = planned(t, pending, ['spot']).claims;
  if (onDemand === undefined || spot === undefined) throw new Error('one claim each');
  t.same(onDemand.instanceTypes, ['t3.medium'], 'sized to one type, an on-demand claim keeps it: EC2 launches the cheapest anyway');
  t.equal(spot.instanceTypes[0], 't3.medium', 'the spot claim starts from the type it was sized for');
  t.ok(spot.instanceTypes.length > 1, `and offers more: ${spot.instanceTypes.join(', ')}`);
  t.equal(spot.pricePerHour, cheapest(typeOf('t3.medium'), 'spot'), 'the plan is priced on the type it was sized for');
  t.same(spot.allocatable, typeOf('t3.medium').allocatable, "the virtual node's room is that type's");
  t.equal(spot.labels['node.kubernetes.io/instance-type'], 't3.medium');
  const types = spot.instanceTypes.map((name) => typeOf(name));
  for (const type of types) {
    t.ok(['cpu', 'memory', 'pods'].every((k) => (type.allocatable[k] ?? 0) >= (spot.allocatable[k] ?? 0)), `${type.name} holds at least the room the virtual node shows`);
    t.equal(type.labels['kubernetes.io/arch'], 'amd64', `${type.name} has the architecture the virtual node shows`);
  }
  const prices = types.map((type) => cheapest(type, 'spot'));
  t.same(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
  t.end();
});

void t.test('with on-demand allowed too, no added type is dearer on spot than the cheapest on-demand offering', (t) => {
  const [claim] = planned(t, pods('web', 3, { cpu: '500m', memory: '512Mi' }), ['spot', 'on-demand']).claims;
  if (claim === undefined) throw new Error('one claim');
  t.ok(claim.instanceTypes.length > 1, `several types: ${claim.instanceTypes.join(', ')}`);
  const ceiling = Math.min(...claim.instanceTypes.map((name) => cheapest(typeOf(name), 'on-demand')));
  for (const name of claim.instanceTypes) t.ok(cheapest(typeOf(name), 'spot') <= ceiling, `${name} on spot costs no more than on-demand (Karpenter's spot offering filter)`);
  t.end();
});

void t.test("every added type meets each pod's requirements", (t) => {
  const families = { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } };
  const names = planned(t, pods('web', 2, { cpu: '500m', memory: '512Mi', spec: families }), ['spot']).claims[0]?.instanceTypes ?? [];
  t.ok(names.length > 1, `several m5 types: ${names.join(', ')}`);
  t.ok(names.every((name) => name.startsWith('m5.')), 'and only m5');
  t.end();
});

void t.test("every added type is within the pods' maximum price", (t) => {
  const cap = 0.05;
  const names = planned(t, pods('cheap', 2, { cpu: '500m', memory: '512Mi', annotations: { [podAnnotations.maxPricePerHour]: String(cap) } }), ['spot']).claims[0]?.instanceTypes ?? [];
  t.ok(names.length > 1, `several types under the cap: ${names.join(', ')}`);
  for (const name of names) t.ok(cheapest(typeOf(name), 'spot') <= cap, `${name} within the pods' maximum price`);
  t.end();
});

void t.test('a spread over instance types decides each claim its one type, and the launch keeps to it', (t) => {
  const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'node.kubernetes.io/instance-type', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } } }] };
  const { claims } = planned(t, pods('web', 4, { cpu: '500m', memory: '512Mi', spec: spread }), ['spot']);
  t.ok(claims.length > 1);
  for (const claim of claims) t.equal(claim.instanceTypes.length, 1, `${claim.name} offers only ${claim.instanceTypes.join(', ')}`);
  t.end();
});

void t.test('over the whole catalog a spot claim offers as many types as one CreateFleet takes, and no more', (t) => {
  const catalog = loadInstanceTypes();
  const [claim] = planned(t, pods('web', 2, { cpu: '500m', memory: '512Mi' }), ['spot'], { catalog }).claims;
  t.equal(claim?.instanceTypes.length, spotLaunchTypes);
  t.end();
});

void t.test("in a NodePool with limits, no added type has more capacity than the claim's largest option, which the limits count", (t) => {
  const pending = pods('web', 3, { cpu: '500m', memory: '512Mi' });
  const sized = planned(t, pending, ['on-demand']).claims[0]?.instanceTypes ?? [];
  const most = Math.max(...sized.map((name) => typeOf(name).capacity['cpu'] ?? 0));
  const [claim] = planned(t, pending, ['spot'], { limits: { cpu: '1000' } }).claims;
  t.ok((claim?.instanceTypes.length ?? 0) > 1, `several types: ${claim?.instanceTypes.join(', ') ?? ''}`);
  for (const name of claim?.instanceTypes ?? []) t.ok((typeOf(name).capacity['cpu'] ?? 0) <= most, `${name} counts no more CPU against the limit`);
  t.end();
});
