import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { build } from '../../extender/app.js';
import { extenderArgs, FakeBinder, node, pod } from './builders.js';

/** The extender with an info-level pino logger whose lines the test reads back. */
function loggedApp(): { app: ReturnType<typeof build>; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => { chunks.push(chunk.toString()); done(); } });
  const view = new ClusterState();
  view.apply({ kind: 'synced' });
  view.apply({ kind: 'node-upserted', node: node('real') });
  const app = build({ view, binder: new FakeBinder(), registry: new Registry(), logger: pino({ level: 'info' }, stream) });
  const lines = (): Record<string, unknown>[] => chunks.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { app, lines };
}

void t.test('the request-completed line of a filter or bind names the pod (and the bind its node), with no line more', async (t) => {
  const { app, lines } = loggedApp();
  await app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(pod({ name: 'web-0' }), ['real']) });
  await app.inject({ method: 'POST', url: '/bind', payload: { PodName: 'web-1', PodNamespace: 'default', PodUID: 'u1', Node: 'real' } });
  const completed = lines().filter((l) => l['msg'] === 'request completed');
  t.same(completed.map((l) => l['res']), [{ statusCode: 200, pod: 'default/web-0' }, { statusCode: 200, pod: 'default/web-1', node: 'real' }]);
  t.equal(lines().length, 2, 'one line per call: no incoming-request twin');
  t.ok(completed.every((l) => typeof l['responseTime'] === 'number'), 'the time the call took, to find its arrival');
});

void t.test('a malformed body still logs its reply, with empty names rather than a throw', async (t) => {
  const { app, lines } = loggedApp();
  const response = await app.inject({ method: 'POST', url: '/filter', payload: { Pod: 7 } });
  t.equal(response.statusCode, 400);
  t.match(lines().find((l) => l['msg'] === 'request completed')?.['res'], { statusCode: 400, pod: '/' });
});
