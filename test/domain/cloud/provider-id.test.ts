import t from 'tap';
import { formatProviderId, parseProviderId } from '../../../domain/cloud/provider-id.js';
import { byPrice } from '../../../domain/cloud/offering.js';

void t.test('a provider id round-trips through format and parse', (t) => {
  const id = formatProviderId('us-west-2a', 'i-0123456789abcdef0');
  t.equal(id, 'aws:///us-west-2a/i-0123456789abcdef0');
  t.same(parseProviderId(id), { zone: 'us-west-2a', instanceId: 'i-0123456789abcdef0' });
  t.end();
});

void t.test('anything but an EC2 provider id parses to undefined', (t) => {
  for (const id of [
    'kwok://node-1',
    'aws:///us-west-2a/',
    'aws://us-west-2a/i-1',
    'aws:///us-west-2a/vol-1',
    '',
  ]) {
    t.equal(parseProviderId(id), undefined, id);
  }
  t.end();
});

void t.test('offerings sort by price, then type, then zone', (t) => {
  const o = (instanceType: string, zone: string, price: number) =>
    ({ instanceType, zone, price, capacityType: 'spot', architecture: 'amd64', kubelet: {} }) as const;
  const sorted = [
    o('m5.large', 'b', 0.1),
    o('c5.large', 'a', 0.1),
    o('m5.large', 'a', 0.1),
    o('t3.large', 'a', 0.05),
  ].sort(byPrice);
  t.same(
    sorted.map((x) => `${x.instanceType}/${x.zone}`),
    ['t3.large/a', 'c5.large/a', 'm5.large/a', 'm5.large/b'],
  );
  t.end();
});
