// The reflector's protocol, against a local server that answers as the API server does: paged LIST, then
// newline-delimited WATCH events, a 410 Gone that forces a relist. The real API server is in test/e2e.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ApiConnection } from '../../../provisioner/kube/api-connection.js';
import { staticTarget } from '../../fakes/kube-targets.js';
import { LineSplitter, startReflector } from '../../../provisioner/kube/reflector.js';

interface Obj { metadata: { name: string; resourceVersion?: string; managedFields?: unknown } }

/** Scripted answers: each LIST gets the next list script, each WATCH the next watch script. */
interface Script {
  lists: Obj[][];
  watches: ((res: ServerResponse) => void)[];
  requests: string[];
}

async function apiServer(script: Script): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    script.requests.push(`${url.searchParams.has('watch') ? 'WATCH' : 'LIST'} ${url.search}`);
    if (url.searchParams.has('watch')) {
      const next = script.watches.shift();
      // Past the script the watch stays open and silent, as a quiet resource's would.
      if (next === undefined) res.writeHead(200).write('');
      else next(res);
      return;
    }
    const items = script.lists[0] ?? [];
    const cont = url.searchParams.get('continue');
    const page = cont === null ? items.slice(0, 2) : items.slice(2);
    if (cont !== null || items.length <= 2) script.lists.shift();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      metadata: { resourceVersion: '10', ...(cont === null && items.length > 2 ? { continue: 'page-2' } : {}) }, items: page,
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }) };
}

function connection(url: string): ApiConnection {
  return new ApiConnection(staticTarget(url, 't'));
}

const event = (type: string, name: string, rv: string): string => `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } })}\n`;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

void t.test('lists every page, then applies watch events from the list version, and relists after 410 Gone', async (t) => {
  const script: Script = {
    lists: [[{ metadata: { name: 'a', managedFields: [1] } }, { metadata: { name: 'b' } }, { metadata: { name: 'c' } }], [{ metadata: { name: 'a' } }, { metadata: { name: 'd' } }]],
    watches: [
      (res) => { res.writeHead(200); res.write(event('ADDED', 'e', '11') + event('DELETED', 'b', '12')); res.end(event('BOOKMARK', '', '13')); },
      (res) => { res.writeHead(200); res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old' } })}\n`); },
    ],
    requests: [],
  };
  const server = await apiServer(script);
  t.teardown(server.close);
  const api = connection(server.url);
  const objects = new Map<string, Obj>();
  const reflector = startReflector<Obj>(api, { resource: 'things', path: '/api/v1/things', project: (raw) => raw as Obj, pageSize: 2 },
    { upsert: (o) => objects.set(o.metadata.name, o), remove: (ref) => objects.delete(ref.metadata.name ?? '') });
  t.teardown(async () => { await reflector.stop(); await api.close(); });
  await reflector.synced;
  await until(() => script.lists.length === 0 && objects.has('d'));
  t.same([...objects.keys()].sort(), ['a', 'd'], 'after the relist, what vanished during the gap (c, e) is removed');
  t.match(script.requests, [/^LIST \?limit=2$/, /^LIST \?limit=2&continue=page-2$/, /^WATCH .*resourceVersion=10/, /^WATCH .*resourceVersion=13/, /^LIST \?limit=2$/]);
  t.match(script.requests[2], /allowWatchBookmarks=true/, 'bookmarks keep the resume point fresh');
});

void t.test('an error from the API server is reported and retried with backoff, not thrown', async (t) => {
  let calls = 0;
  const server = createServer((_req, res) => {
    calls += 1;
    if (calls === 1) return void res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', message: 'storage is (re)initializing' }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [{ metadata: { name: 'x' } }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }));
  const api = connection(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
  const errors: string[] = [];
  const seen: string[] = [];
  const reflector = startReflector<Obj>(api, { resource: 'things', path: '/api/v1/things', project: (raw) => raw as Obj, onError: (e) => errors.push(String(e)) },
    { upsert: (o) => seen.push(o.metadata.name), remove: () => undefined });
  t.teardown(async () => { await reflector.stop(); await api.close(); });
  await reflector.synced;
  t.match(errors, [/watching things: 429 storage is \(re\)initializing/]);
  t.same(seen, ['x']);
});

void t.test('a multi-byte character split across two chunks arrives whole', (t) => {
  const bytes = Buffer.from('{"label":"größe"}\n{"n":2}\n', 'utf8');
  const cut = bytes.indexOf(0xc3) + 1; // inside "ö"
  const lines = new LineSplitter();
  t.same(lines.push(bytes.subarray(0, cut)), []);
  t.same(lines.push(bytes.subarray(cut)).map((line) => JSON.parse(line) as unknown), [{ label: 'größe' }, { n: 2 }]);
  t.end();
});

void t.test('a watch whose connection drops is resumed from the last version it delivered, without a relist', async (t) => {
  const script: Script = {
    lists: [[{ metadata: { name: 'a' } }]],
    watches: [
      (res) => { res.writeHead(200); res.write(event('ADDED', 'b', '11') + event('BOOKMARK', '', '15')); setTimeout(() => res.socket?.destroy(), 50); },
      (res) => { res.writeHead(200); res.write(event('ADDED', 'c', '16')); },
    ],
    requests: [],
  };
  const server = await apiServer(script);
  t.teardown(server.close);
  const api = connection(server.url);
  const objects = new Set<string>();
  const errors: string[] = [];
  const reflector = startReflector<Obj>(api, { resource: 'things', path: '/api/v1/things', project: (raw) => raw as Obj, onError: (e) => errors.push(String(e)) },
    { upsert: (o) => objects.add(o.metadata.name), remove: (ref) => objects.delete(ref.metadata.name ?? '') });
  t.teardown(async () => { await reflector.stop(); await api.close(); });
  await until(() => objects.has('c'));
  t.same([...objects].sort(), ['a', 'b', 'c']);
  t.match(script.requests, [/^LIST/, /^WATCH .*resourceVersion=10&/, /^WATCH .*resourceVersion=15&/]);
  t.equal(script.requests.filter((r) => r.startsWith('LIST')).length, 1, 'one LIST only');
  t.equal(errors.length, 1, 'the dropped connection is reported once');
});

void t.test('a watch the server ends after delivering events is resumed at once; only an empty one that ends at once waits a second', async (t) => {
  // Under load the API server ends every client's pod watch together, several times a second (client-go re-watches
  // at once then); a pause after each close kept nodesmith's pod watch seconds behind kube-scheduler's.
  const ended = (name: string, rv: string) => (res: ServerResponse): void => { res.writeHead(200); res.end(event('ADDED', name, rv)); };
  const empty = (res: ServerResponse): void => { res.writeHead(200); res.end(); };
  const script: Script = { lists: [[]], watches: [ended('b', '11'), ended('c', '12'), ended('d', '13'), empty, empty], requests: [] };
  const at: number[] = [];
  const server = await apiServer(script);
  t.teardown(server.close);
  const api = connection(server.url);
  const objects = new Set<string>();
  const reflector = startReflector<Obj>(api, { resource: 'things', path: '/api/v1/things', project: (raw) => raw as Obj },
    { upsert: (o) => { objects.add(o.metadata.name); at.push(Date.now()); }, remove: () => undefined });
  t.teardown(async () => { await reflector.stop(); await api.close(); });
  await until(() => objects.has('d'));
  t.same([...objects].sort(), ['b', 'c', 'd'], 'every watch\'s event arrived');
  // Three watches in a row, each closed by the server: with a second's pause after each, d came 2 s after b.
  const bToD = (at[2] ?? Infinity) - (at[0] ?? 0);
  t.ok(bToD < 1_500, `d arrived ${String(bToD)} ms after b: no pause between watches that delivered events`);
  const watchesBefore = script.requests.filter((r) => r.startsWith('WATCH')).length;
  await new Promise((resolve) => setTimeout(resolve, 600));
  const watchesAfter = script.requests.filter((r) => r.startsWith('WATCH')).length;
  t.ok(watchesAfter - watchesBefore <= 1, `an empty watch ended at once is followed by a pause, not a busy loop (${String(watchesAfter - watchesBefore)} more watches in 600 ms)`);
});

void t.test('an optional kind whose CRD is not installed counts as synced and empty, and is picked up once installed and dropped once removed', async (t) => {
  const state = { installed: false, items: [{ metadata: { name: 'req-1' } }] };
  const server = createServer((req, res) => {
    if (!state.installed) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', code: 404, message: 'the server could not find the requested resource' }));
    // A watch ends at once (as a CRD's removal ends it); the reflector resumes or relists.
    if (new URL(req.url ?? '/', 'http://x').searchParams.has('watch')) return void res.writeHead(200).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ metadata: { resourceVersion: '5' }, items: state.items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = connection(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
  const objects = new Set<string>();
  const served: boolean[] = [];
  const errors: unknown[] = [];
  const reflector = startReflector<Obj>(api, {
    resource: 'provisioningrequests', path: '/apis/autoscaling.x-k8s.io/v1/provisioningrequests', project: (raw) => raw as Obj,
    onError: (e) => errors.push(e), optional: { onServed: (s) => served.push(s), absentRecheckMs: 20 },
  }, { upsert: (o) => objects.add(o.metadata.name), remove: (ref) => objects.delete(ref.metadata.name ?? '') });
  t.teardown(async () => { await reflector.stop(); await api.close(); server.closeAllConnections(); server.close(); });
  await reflector.synced;
  t.same(served, [false], 'said once that the kind is not served');
  t.equal(objects.size, 0);
  state.installed = true;
  await until(() => objects.has('req-1'));
  t.same(served, [false, true], 'and once that it is served now');
  state.installed = false;
  await until(() => objects.size === 0);
  t.same(served, [false, true, false], 'a removed CRD takes its objects along');
  t.same(errors, [], 'none of it is an error');
});
