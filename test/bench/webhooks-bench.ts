// Webhook benchmark: p50/p99 latency and throughput per admission route at fixed concurrency, over a
// loopback HTTPS listener driven by an undici Pool (keep-alive), so the figures include TLS, JSON
// parsing, envelope validation, the domain rules and serialisation, as the API server sees them.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { serveWebhooks } from '../../webhooks/serve.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';
import { ec2NodeClass, nodePool, review } from '../webhooks/review-fixture.js';
import type { Bench } from './bench.js';

export interface WebhooksBenchOptions {
  readonly concurrencies?: readonly number[];
  readonly calls?: number;
  readonly print?: (line: string) => void;
}

export interface WebhooksBenchFigure {
  readonly route: string;
  readonly concurrency: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'apps', annotations: { 'nodesmith.io/capacity-type-preference': 'spot' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] } };
const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'apps' }, target: { kind: 'Node', name: virtualNodeName('default-x7k2p') } };

/** The routes and bodies measured: the hot path (pods) and the Karpenter objects. */
function workloads(): { route: string; body: string }[] {
  return [
    { route: '/mutate/pods', body: JSON.stringify(review(pod, { namespace: 'apps' })) },
    { route: '/validate/pods', body: JSON.stringify(review(pod, { namespace: 'apps' })) },
    { route: '/validate/pods-binding', body: JSON.stringify(review(binding, { namespace: 'apps', username: 'system:kube-scheduler' })) },
    { route: '/mutate/nodepools', body: JSON.stringify(review(nodePool())) },
    { route: '/validate/nodepools', body: JSON.stringify(review(nodePool({ disruption: { consolidateAfter: '0s', budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] } }))) },
    { route: '/validate/ec2nodeclasses', body: JSON.stringify(review(ec2NodeClass())) },
  ];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function measure(pool: Pool, work: { route: string; body: string }, concurrency: number, calls: number): Promise<WebhooksBenchFigure> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      const started = performance.now();
      const res = await pool.request({ method: 'POST', path: work.route, body: work.body, headers: { 'content-type': 'application/json' } });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${work.route}: HTTP ${res.statusCode}`);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { route: work.route, concurrency, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), callsPerSecond: latencies.length / seconds };
}

/** Runs every route at every concurrency and returns (and prints) the figures. */
export async function runWebhooksBench(options: WebhooksBenchOptions = {}): Promise<WebhooksBenchFigure[]> {
  const print = options.print ?? ((line: string) => { process.stdout.write(`${line}\n`); });
  const dir = await mkdtemp(join(tmpdir(), 'nodesmith-webhooks-bench-'));
  const certs = await issueLocalCertificates();
  await writeFile(join(dir, 'tls.crt'), certs.serving.cert);
  await writeFile(join(dir, 'tls.key'), certs.serving.key);
  const running = await serveWebhooks({ host: '127.0.0.1', port: 0, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') });
  const figures: WebhooksBenchFigure[] = [];
  try {
    for (const concurrency of options.concurrencies ?? [1, 16]) {
      const pool = new Pool(running.url, { connections: concurrency, connect: { ca: certs.ca.cert } });
      for (const work of workloads()) {
        await measure(pool, work, concurrency, 200); // warm-up: JIT and TLS sessions
        const figure = await measure(pool, work, concurrency, options.calls ?? 3000);
        figures.push(figure);
        print(`${figure.route.padEnd(24)} concurrency ${String(concurrency).padStart(2)}  p50 ${figure.p50Ms.toFixed(3)} ms  p99 ${figure.p99Ms.toFixed(3)} ms  ${Math.round(figure.callsPerSecond)} calls/s`);
      }
      await pool.close();
    }
  } finally {
    await running.close();
  }
  return figures;
}

export const webhooksBench: Bench = {
  name: 'webhooks',
  async run(options): Promise<void> {
    await runWebhooksBench({ print: (line) => { options.write(`${line}\n`); } });
  },
};
