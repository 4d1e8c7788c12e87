import Fastify from 'fastify';
import type { Registry } from 'prom-client';
import { renameMetricsNamespace } from './metrics-namespace.js';

/** /healthz, /readyz and /metrics for the process as a whole (the provisioner has no other server). */
export async function startHealthServer(options: { host: string; port: number; metricsNamespace?: string; registry: Registry; isReady: () => boolean }): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (options.isReady()) return { status: 'ready' };
    return reply.code(503).send({ status: 'not ready: cluster state is not synced yet' });
  });
  app.get('/metrics', async (_req, reply) => reply.header('content-type', options.registry.contentType).send(renameMetricsNamespace(await options.registry.metrics(), options.metricsNamespace ?? 'nodesmith')));
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
