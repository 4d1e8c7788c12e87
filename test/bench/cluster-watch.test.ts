import t from 'tap';
import type { Instance } from '@aws-sdk/client-ec2';
import type { V1Node } from '@kubernetes/client-node';
import { bootSeconds, priceFleet } from './cluster-watch.js';
import { poolTable } from './vs-karpenter-run.js';

const instance = (id: string, type: string, launched = '2026-11-26T04:00:00Z'): Instance => ({ InstanceId: id, InstanceType: type as Instance['InstanceType'], LaunchTime: new Date(launched) });
const node = (id: string, created: string): V1Node => ({ metadata: { name: id, creationTimestamp: new Date(created) }, spec: { providerID: `aws:///us-west-2a/${id}` } });

void t.test('a fleet is priced from the one table, by each instance\'s type, whoever launched it', (t) => {
  const table = poolTable('us-west-2');
  const price = (name: string): number => table.find((x) => x.name === name)?.offerings.find((o) => o.capacityType === 'on-demand')?.price ?? Number.NaN;
  const fleet = priceFleet([instance('i-1', 'c6g.xlarge'), instance('i-2', 'c6g.xlarge'), instance('i-3', 'm6g.large')], table);
  t.equal(fleet.instances, 3);
  t.ok(price('c6g.xlarge') > 0, 'the table prices c6g.xlarge on demand');
  t.equal(fleet.price, 2 * price('c6g.xlarge') + price('m6g.large'), 'the sum of each instance\'s on-demand price');
  t.equal(fleet.types, 'c6g.xlarge×2, m6g.large×1', 'types listed by count');
  t.ok(Number.isNaN(priceFleet([instance('i-4', 't3.micro')], table).price), 'a type outside the pool has no price: the figure says so rather than counting it as free');
  t.end();
});

void t.test('the pool\'s table holds only c, m and r of generation 3 and later, on demand', (t) => {
  const table = poolTable('us-west-2');
  t.ok(table.length > 50, `${String(table.length)} types`);
  t.same(table.filter((x) => !['c', 'm', 'r'].includes(x.labels['karpenter.k8s.aws/instance-category'] ?? '')), [], 'no other category');
  t.same(table.filter((x) => Number(x.labels['karpenter.k8s.aws/instance-generation']) <= 2).map((x) => x.name), [], 'no generation 1 or 2');
  t.same(table.flatMap((x) => x.offerings).filter((o) => o.capacityType !== 'on-demand'), [], 'no spot offering');
  t.end();
});

void t.test('boot time is launch to Node creation, median and max, for the Nodes of the listed instances only', (t) => {
  const instances = [instance('i-1', 'c6g.xlarge'), instance('i-2', 'c6g.xlarge'), instance('i-3', 'c6g.xlarge')];
  const nodes = [node('i-1', '2026-11-26T04:00:01Z'), node('i-2', '2026-11-26T04:00:02Z'), node('i-3', '2026-11-26T04:00:07Z'), node('i-9', '2026-11-26T05:00:00Z')];
  t.same(bootSeconds(instances, nodes), [2, 7]);
  t.same(bootSeconds(instances, []), [Number.NaN, Number.NaN], 'no Node: no figure');
  t.end();
});
