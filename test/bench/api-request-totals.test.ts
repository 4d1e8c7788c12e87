import t from 'tap';
import { byVerb, byVerbAndResource, requestsBetween, writesPerPodLine } from './api-request-totals.js';

const series = 'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 7';

void t.test('a series is keyed by its verb and resource, with the subresource when it has one', (t) => {
  t.equal(byVerbAndResource(series), 'POST pods/binding');
  t.equal(byVerbAndResource('apiserver_request_total{code="200",resource="",subresource="",verb="GET"} 3'), 'GET (non-resource)');
  t.equal(byVerb(series), 'POST');
  t.end();
});

void t.test('the requests of a window are what each key grew by, most first, the keys that did not grow left out', (t) => {
  const before = new Map([['POST pods/binding', 10], ['PATCH pods/status', 5]]);
  const after = new Map([['POST pods/binding', 1_010], ['PATCH pods/status', 5], ['POST events', 300]]);
  t.same(requestsBetween(before, after), [['POST pods/binding', 1_000], ['POST events', 300]]);
  t.end();
});

void t.test('writes per pod count POST, PUT, PATCH and DELETE, not reads', (t) => {
  const line = writesPerPodLine('the burst', [['LIST pods', 5_000], ['POST pods/binding', 1_000], ['PATCH pods/status', 500], ['WATCH nodes', 40]], 1_000);
  t.match(line, /^the burst: 1500 API writes, 1\.50 per pod \(POST pods\/binding 1\.00, PATCH pods\/status 0\.50\)/);
  t.end();
});
