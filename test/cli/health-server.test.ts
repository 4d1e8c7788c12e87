import { Registry } from 'prom-client';
import t from 'tap';
import { healthApp, isLoopback } from '../../cli/health-server.js';

const report = { methods: [], nodes: [] };
const app = healthApp({ registry: new Registry(), isReady: () => true, consolidation: () => Promise.resolve(report) });
t.teardown(() => app.close());

void t.test('the debug endpoint answers a connection from inside the pod (kubectl port-forward arrives on loopback)', async (t) => {
  for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
    const reply = await app.inject({ method: 'GET', url: '/debug/consolidation', remoteAddress });
    t.equal(reply.statusCode, 200, remoteAddress);
    t.same(reply.json(), report);
  }
});

void t.test('from anywhere else it is refused with how to reach it, while probes and metrics still answer', async (t) => {
  const refused = await app.inject({ method: 'GET', url: '/debug/consolidation', remoteAddress: '10.0.3.7' });
  t.equal(refused.statusCode, 403);
  t.match(refused.json(), { message: /kubectl port-forward .*nodesmith disruption --leader http:\/\/127\.0\.0\.1:8080/ });
  for (const url of ['/debug/consolidation?x=1', '/%64ebug/consolidation']) t.equal((await app.inject({ method: 'GET', url, remoteAddress: '::ffff:10.0.3.7' })).statusCode, 403, `${url} does not get around it`);
  for (const url of ['/healthz', '/readyz', '/metrics']) t.equal((await app.inject({ method: 'GET', url, remoteAddress: '10.0.3.7' })).statusCode, 200, url);
});

void t.test('loopback means 127.0.0.0/8 and ::1, also IPv4-mapped', (t) => {
  t.same(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopback), [true, true, true, true]);
  t.same(['10.0.0.1', '::ffff:10.0.0.1', '1127.0.0.1', '127.0.0.1.evil', 'fe80::1', '', undefined].map(isLoopback), [false, false, false, false, false, false, false]);
  t.end();
});
