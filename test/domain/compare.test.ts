import t from 'tap';
import { compareStrings } from '../../domain/compare.js';

void t.test('strings sort by code unit, as Go sorts them, whatever the locale', (t) => {
  t.same(['b', 'B', 'a', 'A'].sort(compareStrings), ['A', 'B', 'a', 'b'], 'capitals first (localeCompare would put a before B)');
  t.same(['web-10', 'web-9', 'web-1', 'web.0'].sort(compareStrings), ['web-1', 'web-10', 'web-9', 'web.0']);
  t.equal(compareStrings('x', 'x'), 0);
  t.end();
});

void t.test('for names Kubernetes allows and RFC 3339 times, the order is the one localeCompare gave', (t) => {
  const names = ['ns/web-0', 'ns/web-10', 'ns-2/a', 'ns/web.1', 'kube-system/coredns-5d', 'c6g.large', 'c6g.12xlarge', 'us-east-1b', 'us-east-1a', 'subnet-0af3', 'subnet-09b2'];
  t.same([...names].sort(compareStrings), [...names].sort((a, b) => a.localeCompare(b)));
  const times = ['2026-11-24T10:00:00Z', '2026-11-24T09:59:59Z', '2026-01-02T00:00:00Z'];
  t.same([...times].sort(compareStrings), [...times].sort((a, b) => a.localeCompare(b)));
  t.end();
});
