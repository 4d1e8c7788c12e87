import t from 'tap';
import { harness, node, pod } from './builders.js';

/** JSON text of a value nested `depth` levels deep: written out, as JSON.stringify's recursion overflows first. */
const nestedText = (depth: number): string => `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
/** A Node of the full-Nodes form (kube-scheduler without nodeCacheCapable) carrying a value 5,000 levels deep. */
const deepNode = JSON.stringify(node('a')).replace(/}$/, `,"extra":${nestedText(5000)}}`);
const deepNodes = `{"Pod":${JSON.stringify(pod())},"Nodes":{"metadata":{},"items":[${deepNode}]},"NodeNames":null}`;
const tooDeep = (field: string): RegExp => new RegExp(`^${field} nests more than 512 levels deep; no Kubernetes object does$`);

const cases: { name: string; url: string; payload: string; contentType?: string; status: number; message: RegExp }[] = [
  { name: 'a full-Nodes filter request whose Node nests 5,000 levels deep', url: '/filter', payload: deepNodes, status: 400, message: tooDeep('Nodes') },
  { name: 'a full-Nodes prioritize request whose Node nests 5,000 levels deep', url: '/prioritize', payload: deepNodes, status: 400, message: tooDeep('Nodes') },
  { name: 'a filter request whose Pod nests 100,000 levels deep', url: '/filter', payload: `{"Pod":${JSON.stringify(pod()).replace(/}$/, `,"extra":${nestedText(100_000)}}`)},"NodeNames":["a"]}`, status: 400, message: tooDeep('Pod') },
  { name: 'a bind request with a field nested 5,000 levels deep', url: '/bind', payload: `{"PodName":"a","PodNamespace":"b","PodUID":"c","Node":"a","Extra":${nestedText(5000)}}`, status: 400, message: tooDeep('Extra') },
  { name: 'a body that is not JSON', url: '/filter', payload: '{"Pod":', status: 400, message: /JSON/i },
  { name: 'a filter request without a Pod', url: '/filter', payload: '{"NodeNames":["a"]}', status: 400, message: /must have required property 'Pod'/ },
  { name: 'a Pod without metadata.name', url: '/filter', payload: JSON.stringify({ Pod: { metadata: { namespace: 'default' }, spec: { containers: [] } }, NodeNames: [] }), status: 400, message: /Pod\/metadata must have required property 'name'/ },
  { name: 'NodeNames that is not a list of strings', url: '/prioritize', payload: JSON.stringify({ Pod: pod(), NodeNames: [1, 2] }), status: 400, message: /NodeNames/ },
  { name: 'a resource request of the wrong type', url: '/filter', payload: JSON.stringify({ Pod: { ...pod(), spec: { containers: [{ name: 'a', resources: { requests: { cpu: { big: true } } } }] } }, NodeNames: [] }), status: 400, message: /requests/ },
  { name: 'an unparseable quantity', url: '/filter', payload: JSON.stringify({ Pod: { ...pod(), spec: { containers: [{ name: 'a', resources: { requests: { cpu: 'lots' } } }] } }, NodeNames: [] }), status: 400, message: /invalid quantity "lots"/ },
  { name: 'a bind without a Node', url: '/bind', payload: JSON.stringify({ PodName: 'a', PodNamespace: 'b', PodUID: 'c' }), status: 400, message: /must have required property 'Node'/ },
  { name: 'a bind whose PodName is a number', url: '/bind', payload: JSON.stringify({ PodName: 7, PodNamespace: 'b', PodUID: 'c', Node: 'n' }), status: 400, message: /PodName must be string/ },
  { name: 'a JSON array instead of an object', url: '/bind', payload: '[]', status: 400, message: /must be object/ },
  { name: 'a plain-text body', url: '/filter', payload: 'hello', contentType: 'text/plain', status: 400, message: /body must be object/ },
  { name: 'a body of an unknown content type', url: '/filter', payload: '<Pod/>', contentType: 'application/xml', status: 415, message: /Unsupported Media Type/i },
];

for (const c of cases) {
  void t.test(`${c.name} gets ${c.status} with a message`, async (t) => {
    const h = harness();
    const response = await h.app.inject({
      method: 'POST', url: c.url, payload: c.payload, headers: { 'content-type': c.contentType ?? 'application/json' },
    });
    t.equal(response.statusCode, c.status, response.body);
    t.match(response.json<{ Error: string }>().Error, c.message);
  });
}

void t.test('validation leaves the Pod exactly as sent (no coercion, no removal)', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  const sent = { ...node('a'), extra: { kept: '1' }, status: { ...node('a').status, capacity: { cpu: 4 } } };
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: { Pod: pod(), Nodes: { items: [sent] } } });
  t.same(response.json<{ Nodes: unknown }>().Nodes, { items: [sent] });
});

void t.test('a Node nested just within the bound is served as any other', async (t) => {
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: node('a') });
  // The Node sits three levels into the body (Nodes.items[0]); its own value may nest up to the bound less those.
  const payload = `{"Pod":${JSON.stringify(pod())},"Nodes":{"items":[${JSON.stringify(node('a')).replace(/}$/, `,"extra":${nestedText(509)}}`)}]}}`;
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload, headers: { 'content-type': 'application/json' } });
  t.equal(response.statusCode, 200, response.body.slice(0, 200));
  t.equal(response.json<{ Nodes: { items: unknown[] } }>().Nodes.items.length, 1);
});

void t.test('bad requests are counted with the bad_request outcome', async (t) => {
  const h = harness();
  await h.app.inject({ method: 'POST', url: '/filter', payload: '{}', headers: { 'content-type': 'application/json' } });
  const metrics = await h.registry.getSingleMetricAsString('nodesmith_extender_requests_total');
  t.match(metrics, /nodesmith_extender_requests_total\{verb="filter",outcome="bad_request"\} 1/);
});

void t.test('node names that are Object.prototype keys are rejected like any unknown name', async (t) => {
  const h = harness();
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: { Pod: pod(), NodeNames: ['__proto__', 'constructor', 'toString'] } });
  t.equal(response.statusCode, 200);
  const body = JSON.parse(response.body) as { NodeNames: string[]; FailedAndUnresolvableNodes: Record<string, string> };
  t.same(body.NodeNames, []);
  t.same(Object.keys(body.FailedAndUnresolvableNodes).sort(), ['__proto__', 'constructor', 'toString']);
});
