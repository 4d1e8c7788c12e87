import t from 'tap';
import { addResources, firstShortfall, fitsWithin, maxResources, parseResourceList, subtractResources, toQuantities } from '../../domain/resource-list.js';

void t.test('resource lists parse and combine key by key', (t) => {
  const a = parseResourceList({ cpu: '1500m', memory: '1Gi', 'nvidia.com/gpu': 1 });
  t.same(a, { cpu: 1500, memory: 2 ** 30, 'nvidia.com/gpu': 1 });
  t.same(addResources(a, { cpu: 500, pods: 1 }), { cpu: 2000, memory: 2 ** 30, 'nvidia.com/gpu': 1, pods: 1 });
  t.same(subtractResources({ cpu: 1000 }, { cpu: 1500, memory: 1 }), { cpu: -500, memory: -1 });
  t.same(maxResources({ cpu: 1, memory: 5 }, { cpu: 3 }), { cpu: 3, memory: 5 });
  t.end();
});

void t.test('fit is checked for every positive request, missing room counting as zero', (t) => {
  t.ok(fitsWithin({ cpu: 1000, memory: 0 }, { cpu: 1000 }));
  t.notOk(fitsWithin({ 'nvidia.com/gpu': 1 }, { cpu: 1000 }));
  t.equal(firstShortfall({ cpu: 10, memory: 20 }, { cpu: 10, memory: 19 }), 'memory');
  t.end();
});

void t.test('amounts go back to quantities that parse to the same amounts, never below zero', (t) => {
  const amounts = parseResourceList({ cpu: '1500m', memory: '1Gi', pods: '58', 'nvidia.com/gpu': 1 });
  t.same(toQuantities(amounts), { cpu: '1500m', memory: String(2 ** 30), pods: '58', 'nvidia.com/gpu': '1' });
  t.same(parseResourceList(toQuantities(amounts)), amounts);
  t.same(toQuantities({ cpu: -250.5, memory: 10.9 }), { cpu: '0m', memory: '10' });
  t.end();
});
