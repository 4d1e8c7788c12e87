// Both HTTPS servers under hundreds of connections trickling a byte a second, and bodies far over the limit:
// a normal client keeps being served (every call answered 200), over-limit bodies are refused, and memory stays
// flat. The latency figures (p99 with and without the slow clients) are printed, not asserted: tests never
// assert wall-clock time here; `npm run bench -- --only slow-clients` prints the same figures.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import t from 'tap';
import { serve } from '../../extender/serve.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { serveWebhooks } from '../../webhooks/serve.js';
import { extenderArgs, FakeBinder, node, pod } from '../extender/builders.js';
import { nodePool, review } from '../webhooks/review-fixture.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { normalClient, oversizedBody, slowLoris, targetOf } from './slow-clients.js';

const slowConnections = Number(process.env['NODESMITH_SLOW_CLIENTS'] ?? 300);
const calls = 150;

/** The cluster model the extender answers from, built as test/extender/serve.test.ts builds it: one synced node. */
function oneNodeModel(): ClusterState {
  const state = new ClusterState();
  state.apply({ kind: 'node-upserted', node: node('a') });
  state.markSynced();
  return state;
}

async function servers(): Promise<{ ca: string; targets: { name: string; url: string; path: string; body: string; limit: number; close: () => Promise<void> }[] }> {
  const { ca, serving } = await issueLocalCertificates();
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-slow-'));
  writeFileSync(join(dir, 'tls.crt'), serving.cert);
  writeFileSync(join(dir, 'tls.key'), serving.key);
  const webhooks = await serveWebhooks({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), host: '127.0.0.1', port: 0, logger: false });
  // The extender's own limit (128 MiB) would make this test push gigabytes; a 1 MiB limit exercises the same path.
  const extenderLimit = 1024 * 1024;
  const extender = await serve({ view: oneNodeModel(), binder: new FakeBinder(), registry: new Registry(), logger: false, host: '127.0.0.1', port: 0, https: { cert: serving.cert, key: serving.key }, bodyLimit: extenderLimit });
  return {
    ca: ca.cert,
    targets: [
      { name: 'webhooks', url: webhooks.url, path: '/validate/nodepools', body: JSON.stringify(review(nodePool())), limit: 8 * 1024 * 1024, close: () => webhooks.close() },
      { name: 'extender', url: extender.url, path: '/filter', body: JSON.stringify(extenderArgs(pod(), ['a'])), limit: extenderLimit, close: async () => { extender.closeAllConnections(); await extender.close(); } },
    ],
  };
}

const { ca, targets } = await servers();
t.teardown(async () => { await Promise.all(targets.map((s) => s.close())); });

for (const server of targets) {
  void t.test(`the ${server.name} HTTPS server keeps serving a normal client past ${String(slowConnections)} slow clients and over-limit bodies`, async (t) => {
    const call = { path: server.path, body: server.body, count: calls };
    const alone = await normalClient(server.url, ca, call);
    t.equal(alone.ok, calls, 'every call answered alone');
    const rssBefore = process.memoryUsage().rss;
    const loris = await slowLoris(targetOf(server.url, ca), slowConnections, server.path);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const oversized = Promise.all([1, 2, 3].map(() => oversizedBody(targetOf(server.url, ca), server.path, server.limit * 4)));
      const crowded = await normalClient(server.url, ca, call);
      t.equal(crowded.ok, calls, 'every call answered among the slow clients');
      for (const outcome of await oversized) t.ok(outcome === 413 || outcome === 400 || outcome === 'closed', `an over-limit body is refused (got ${String(outcome)})`);
      const grownMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
      t.ok(grownMiB < 200, `memory stays flat: RSS grew ${grownMiB.toFixed(0)} MiB with the slow clients and ${String(3 * 4)}× limit bodies`);
      t.comment(`${server.name}: normal client p99 ${alone.p99.toFixed(1)} ms alone, ${crowded.p99.toFixed(1)} ms among ${String(slowConnections)} slow clients (${(crowded.p99 / alone.p99).toFixed(2)}×); server closed ${String(loris.closedByServer())} of them`);
    } finally {
      loris.stop();
    }
  });
}
