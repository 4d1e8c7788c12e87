import t from 'tap';
import { addResources, firstShortfall, fitsWithin, maxResources, parseResourceList, subtractResources } from '../../domain/resource-list.js';

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
