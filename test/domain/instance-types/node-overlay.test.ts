import t from 'tap';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import { adjustedPrice, applyNodeOverlays, overlaidOffering, type NodeOverlayLike } from '../../../domain/instance-types/node-overlay.js';

const catalog = loadInstanceTypes({ only: new Set(['m7i.large', 'm6i.large', 'c7i.large']) });
const family = 'karpenter.k8s.aws/instance-family';

function overlay(name: string, spec: NodeOverlayLike['spec']): NodeOverlayLike {
  return { metadata: { name }, spec };
}

function typeOf(types: readonly InstanceType[], name: string): InstanceType {
  const type = types.find((x) => x.name === name);
  if (type === undefined) throw new Error(`${name} is not in the test catalog`);
  return type;
}

function price(types: readonly InstanceType[], name: string, capacityType: string, zone = 'us-east-1a'): number | undefined {
  return typeOf(types, name).offerings.find((o) => o.capacityType === capacityType && o.zone === zone)?.price;
}

const base = (name: string, capacityType: string, zone?: string): number => price(catalog, name, capacityType, zone) ?? NaN;
const m7i = [{ key: family, operator: 'In', values: ['m7i'] }];

void t.test('a price adjustment is an amount or a percentage, an absolute price replaces, and none goes below zero', (t) => {
  t.equal(adjustedPrice(0.1, '-30%'), 0.1 * 0.7);
  t.equal(adjustedPrice(0.1, '+10%'), 0.1 * 1.1);
  t.equal(adjustedPrice(0.1, '+0.05'), 0.1 + 0.05);
  t.equal(adjustedPrice(0.1, '-0.5'), 0);
  t.equal(adjustedPrice(0.1, '-100%'), 0);
  t.equal(adjustedPrice(0.1, '0.025'), 0.025);
  t.end();
});

void t.test('a savings-plan overlay of -30% on m7i lowers every m7i offering and leaves other types untouched', (t) => {
  const { types, verdicts } = applyNodeOverlays(catalog, [overlay('savings-plan', { requirements: m7i, priceAdjustment: '-30%' })]);
  t.equal(price(types, 'm7i.large', 'on-demand'), base('m7i.large', 'on-demand') * 0.7);
  t.equal(price(types, 'm7i.large', 'spot', 'us-east-1c'), base('m7i.large', 'spot', 'us-east-1c') * 0.7);
  t.equal(typeOf(types, 'm6i.large'), typeOf(catalog, 'm6i.large'), 'the same object: nothing to copy');
  t.ok(typeOf(types, 'm7i.large').offerings.every((o) => o.priceOverlaid === true), 'each overlaid offering says so (the launch then asks EC2 to follow our price)');
  t.same(verdicts.get('savings-plan'), { applied: true });
  t.equal(price(catalog, 'm7i.large', 'on-demand'), base('m7i.large', 'on-demand'), 'the input catalog is not changed');
  t.end();
});

void t.test('requirements on the capacity type and zone select single offerings', (t) => {
  const { types } = applyNodeOverlays(catalog, [overlay('reserved-1a', {
    requirements: [...m7i, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }],
    price: '0.01',
  })]);
  t.equal(price(types, 'm7i.large', 'on-demand', 'us-east-1a'), 0.01);
  t.equal(price(types, 'm7i.large', 'on-demand', 'us-east-1b'), base('m7i.large', 'on-demand', 'us-east-1b'));
  t.equal(price(types, 'm7i.large', 'spot', 'us-east-1a'), base('m7i.large', 'spot', 'us-east-1a'));
  t.end();
});

void t.test('an overlay with no requirements applies to every type', (t) => {
  const { types } = applyNodeOverlays(catalog, [overlay('all', { priceAdjustment: '+0.01' })]);
  for (const type of catalog) t.equal(price(types, type.name, 'on-demand'), base(type.name, 'on-demand') + 0.01, type.name);
  t.end();
});

void t.test('capacity adds extended resources to capacity and allocatable, and keeps the standard ones', (t) => {
  const { types } = applyNodeOverlays(catalog, [overlay('hugepages', { requirements: m7i, capacity: { 'example.com/device': '2', 'hugepages-2Mi': '1Gi' } })]);
  const type = typeOf(types, 'm7i.large');
  const before = typeOf(catalog, 'm7i.large');
  t.equal(type.capacity['example.com/device'], 2);
  t.equal(type.allocatable['hugepages-2Mi'], 2 ** 30);
  t.equal(type.allocatable['cpu'], before.allocatable['cpu']);
  t.same(type.offerings, before.offerings, 'a capacity-only overlay keeps the prices');
  t.notOk('example.com/device' in typeOf(types, 'c7i.large').capacity);
  t.end();
});

void t.test('the higher weight wins a price, whatever the names', (t) => {
  const { types, verdicts } = applyNodeOverlays(catalog, [
    overlay('a-low', { requirements: m7i, price: '0.5', weight: 1 }),
    overlay('z-high', { requirements: m7i, price: '0.2', weight: 50 }),
  ]);
  t.equal(price(types, 'm7i.large', 'on-demand'), 0.2);
  t.same([...verdicts.values()], [{ applied: true }, { applied: true }], 'a lower weight is not a conflict');
  t.end();
});

void t.test('a lower weight still prices the offerings the higher one did not select', (t) => {
  const { types } = applyNodeOverlays(catalog, [
    overlay('spot-only', { requirements: [...m7i, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }], price: '0.01', weight: 20 }),
    overlay('family', { requirements: m7i, priceAdjustment: '-50%', weight: 10 }),
  ]);
  t.equal(price(types, 'm7i.large', 'spot'), 0.01);
  t.equal(price(types, 'm7i.large', 'on-demand'), base('m7i.large', 'on-demand') * 0.5);
  t.end();
});

void t.test('two overlays of the same weight that price one offering conflict: the later name in the alphabet applies, the other not at all', (t) => {
  const { types, verdicts } = applyNodeOverlays(catalog, [
    overlay('alpha', { requirements: m7i, price: '0.3', capacity: { 'example.com/a': '1' }, weight: 10 }),
    overlay('beta', { requirements: m7i, price: '0.4', weight: 10 }),
  ]);
  t.equal(price(types, 'm7i.large', 'on-demand'), 0.4);
  t.notOk('example.com/a' in typeOf(types, 'm7i.large').capacity, 'none of the conflicting overlay is applied, its capacity neither');
  const alpha = verdicts.get('alpha');
  t.equal(alpha?.applied, false);
  t.match(alpha?.applied === false ? alpha.message : '', /price of m7i\.large .*NodeOverlay beta has the same weight \(10\)/);
  t.same(verdicts.get('beta'), { applied: true });
  t.end();
});

void t.test('overlays of the same weight that set different resources merge; the same resource conflicts', (t) => {
  const merged = applyNodeOverlays(catalog, [
    overlay('a', { requirements: m7i, capacity: { 'example.com/a': '1' }, weight: 5 }),
    overlay('b', { requirements: m7i, capacity: { 'example.com/b': '2' }, weight: 5 }),
  ]);
  t.same([typeOf(merged.types, 'm7i.large').capacity['example.com/a'], typeOf(merged.types, 'm7i.large').capacity['example.com/b']], [1, 2]);
  const clashing = applyNodeOverlays(catalog, [
    overlay('a', { requirements: m7i, capacity: { 'example.com/a': '1' }, weight: 5 }),
    overlay('b', { requirements: m7i, capacity: { 'example.com/a': '3' }, weight: 5 }),
  ]);
  t.equal(typeOf(clashing.types, 'm7i.large').capacity['example.com/a'], 3);
  t.match(clashing.verdicts.get('a'), { applied: false, reason: 'Conflict', message: /capacity example\.com\/a of m7i\.large/ });
  t.end();
});

void t.test('a higher weight keeps its amount of a resource; a lower weight adds only what is missing', (t) => {
  const { types } = applyNodeOverlays(catalog, [
    overlay('low', { requirements: m7i, capacity: { 'example.com/a': '9', 'example.com/b': '4' }, weight: 1 }),
    overlay('high', { requirements: m7i, capacity: { 'example.com/a': '1' }, weight: 2 }),
  ]);
  t.same([typeOf(types, 'm7i.large').capacity['example.com/a'], typeOf(types, 'm7i.large').capacity['example.com/b']], [1, 4]);
  t.end();
});

void t.test('same-weight overlays that select different types never conflict', (t) => {
  const { types, verdicts } = applyNodeOverlays(catalog, [
    overlay('m7i', { requirements: m7i, price: '0.05' }),
    overlay('c7i', { requirements: [{ key: family, operator: 'In', values: ['c7i'] }], price: '0.04' }),
  ]);
  t.same([price(types, 'm7i.large', 'spot'), price(types, 'c7i.large', 'spot')], [0.05, 0.04]);
  t.same([...verdicts.values()].map((v) => v.applied), [true, true]);
  t.end();
});

void t.test('an overlay that selects nothing is applied and changes nothing', (t) => {
  const result = applyNodeOverlays(catalog, [overlay('none', { requirements: [{ key: family, operator: 'In', values: ['x9z'] }], price: '0' })]);
  t.equal(result.types, catalog);
  t.same(result.verdicts.get('none'), { applied: true });
  t.end();
});

void t.test('an offering outside the catalog is overlaid by the first overlay by precedence that selects it and was not left out', (t) => {
  const m7iLarge = typeOf(catalog, 'm7i.large');
  const reserved = { zone: 'us-east-1a', capacityType: 'reserved', price: 1e-8, available: true };
  const reservedOnly = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] }];
  const overlays = [
    overlay('low', { requirements: reservedOnly, price: '0.01', weight: 1 }),
    overlay('high', { requirements: reservedOnly, price: '0.03', weight: 10 }),
    overlay('spot-only', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }], price: '9' }),
  ];
  t.equal(overlaidOffering(m7iLarge, reserved, overlays, new Map()).price, 0.03, 'the higher weight wins');
  t.equal(overlaidOffering(m7iLarge, reserved, overlays, new Map([['high', { applied: false, reason: 'Conflict', message: 'x' }]])).price, 0.01, 'an overlay left out for a conflict applies nowhere');
  t.same(overlaidOffering(m7iLarge, reserved, [overlays[2] ?? overlay('x', {})], new Map()), reserved, 'not selected: untouched');
  t.end();
});
