// Load generator for the extender benchmark, run in a worker thread so that the client's own JSON and
// socket work does not share the server's event loop (it still shares the machine's cores).
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

export interface LoadJob {
  readonly url: string;
  readonly path: string;
  readonly bodies: readonly string[];
  readonly concurrency: number;
  readonly calls: number;
}

export interface LoadResult {
  readonly latencies: number[];
  readonly seconds: number;
}

async function drive(pool: Pool, job: LoadJob, calls: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const body = job.bodies[next++ % job.bodies.length] ?? '';
      const started = performance.now();
      const response = await pool.request({ method: 'POST', path: job.path, body, headers: { 'content-type': 'application/json' } });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${job.path} answered ${response.statusCode}`);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

const job = workerData as LoadJob;
const pool = new Pool(job.url, { connections: job.concurrency, pipelining: 1 });
await drive(pool, job, 200); // warm-up: JIT and connections
const result = await drive(pool, job, job.calls);
await pool.close();
parentPort?.postMessage(result);
