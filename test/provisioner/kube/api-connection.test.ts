import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { ApiConnection } from '../../../provisioner/kube/api-connection.js';
import { KubePodBinder } from '../../../provisioner/kube/binder.js';
import { apiServer } from '../../fakes/fake-api-server.js';
import { RotatingTokenTarget } from '../../fakes/kube-targets.js';

const pod = { namespace: 'shop', name: 'web-1', uid: 'uid-1', nodeName: 'node-a' };

void t.test('a request goes below the server URL path with the kubeconfig token and a JSON body', async (t) => {
  const api = await apiServer(t, () => ({ status: 201 }));
  const connection = new ApiConnection(new RotatingTokenTarget(`${api.url}/gateway/k8s/`));
  t.teardown(() => connection.close());
  const response = await connection.request('POST', '/api/v1/namespaces/shop/pods/web-1/binding', { kind: 'Binding' });
  t.equal(response.status, 201);
  t.same(api.seen.map((s) => [s.method, s.url, s.authorization, s.contentType, s.body]), [
    ['POST', '/gateway/k8s/api/v1/namespaces/shop/pods/web-1/binding', 'Bearer first', 'application/json', '{"kind":"Binding"}'],
  ]);
});

void t.test('after a 401 the credentials are read again and the request is sent once more', async (t) => {
  let accepted = 'Bearer first';
  const api = await apiServer(t, (s) => ({ status: s.authorization === accepted ? 200 : 401 }));
  const target = new RotatingTokenTarget(api.url);
  const connection = new ApiConnection(target);
  t.teardown(() => connection.close());
  t.equal((await connection.request('GET', '/version')).status, 200);
  // The token expires and its source already holds the new one, well before the periodic refresh.
  target.token = 'second';
  accepted = 'Bearer second';
  t.equal((await connection.request('GET', '/version')).status, 200, 'the retry carries the rotated token');
  t.same(api.seen.map((s) => s.authorization), ['Bearer first', 'Bearer first', 'Bearer second']);
  t.equal(target.reads, 2);
  t.equal(target.invalidations, 1, 'the 401 told the source to drop what it cached (an exec plugin runs again)');
});

void t.test('credentials are cached between requests and read again once refreshMs has passed', async (t) => {
  const api = await apiServer(t, () => ({ status: 200 }));
  const target = new RotatingTokenTarget(api.url);
  const clock = new FakeClock(1_000);
  const connection = new ApiConnection(target, { refreshMs: 10_000, clock });
  t.teardown(() => connection.close());
  await Promise.all([connection.request('GET', '/a'), connection.request('GET', '/b')]);
  await connection.request('GET', '/c');
  t.equal(target.reads, 1, 'three requests, one read');
  target.token = 'later';
  clock.step(10_000);
  await Promise.all([connection.request('GET', '/d'), connection.request('GET', '/e')]);
  t.equal(target.reads, 2, 'stale credentials are read again once, however many requests wait');
  t.same(api.seen.slice(-2).map((s) => s.authorization), ['Bearer later', 'Bearer later']);
});

void t.test('a server that does not answer makes the request reject rather than hang', async (t) => {
  const connection = new ApiConnection(new RotatingTokenTarget('http://127.0.0.1:1'));
  t.teardown(() => connection.close());
  await t.rejects(connection.request('GET', '/version'));
});

void t.test('the binder posts a Binding with the pod UID as precondition', async (t) => {
  const api = await apiServer(t, () => ({ status: 201 }));
  const binder = new KubePodBinder(new ApiConnection(new RotatingTokenTarget(api.url)));
  t.teardown(() => binder.close());
  await binder.bind(pod);
  t.equal(api.seen[0]?.url, '/api/v1/namespaces/shop/pods/web-1/binding?fieldManager=nodesmith');
  t.same(JSON.parse(api.seen[0]?.body ?? '{}'), {
    apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web-1', namespace: 'shop', uid: 'uid-1' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
  });
});

void t.test('a conflict on a pod already bound to the same node is the echo of an earlier bind and succeeds', async (t) => {
  const api = await apiServer(t, (s) => (s.method === 'POST' ? { status: 409, body: { kind: 'Status', message: 'pod web-1 is already assigned to node "node-a"' } } : { status: 200, body: { spec: { nodeName: 'node-a' } } }));
  const binder = new KubePodBinder(new ApiConnection(new RotatingTokenTarget(api.url)));
  t.teardown(() => binder.close());
  await binder.bind(pod);
  t.same(api.seen.map((s) => `${s.method} ${s.url}`), ['POST /api/v1/namespaces/shop/pods/web-1/binding?fieldManager=nodesmith', 'GET /api/v1/namespaces/shop/pods/web-1']);
});

void t.test('a conflict on a pod bound elsewhere fails with the API server message', async (t) => {
  const api = await apiServer(t, (s) => (s.method === 'POST' ? { status: 409, body: { kind: 'Status', message: 'pod web-1 is already assigned to node "node-b"' } } : { status: 200, body: { spec: { nodeName: 'node-b' } } }));
  const binder = new KubePodBinder(new ApiConnection(new RotatingTokenTarget(api.url)));
  t.teardown(() => binder.close());
  await t.rejects(binder.bind(pod), { message: 'creating binding of pod shop/web-1 to node node-a: 409 pod web-1 is already assigned to node "node-b"' });
});

void t.test('a refused UID precondition names the reason', async (t) => {
  const api = await apiServer(t, () => ({ status: 409, body: { kind: 'Status', message: 'Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2' } }));
  const binder = new KubePodBinder(new ApiConnection(new RotatingTokenTarget(api.url)));
  t.teardown(() => binder.close());
  await t.rejects(binder.bind(pod), { message: /409 Precondition failed: UID in precondition: uid-1/ });
});
