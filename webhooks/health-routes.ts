import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export interface HealthOptions {
  readonly registry: Registry;
  readonly isReady: () => boolean;
}

/** /healthz (process alive), /readyz (able to answer reviews), /metrics (Prometheus text). */
export function registerHealthRoutes(app: FastifyInstance, opts: HealthOptions): void {
  app.get('/healthz', () => Promise.resolve('ok'));
  app.get('/readyz', async (_request, reply) => {
    if (!opts.isReady()) return reply.code(503).send('not ready');
    return 'ok';
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await opts.registry.metrics();
    return reply.header('content-type', opts.registry.contentType).send(text);
  });
}
