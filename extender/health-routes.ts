import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ClusterModel } from '../provisioner/index.js';

export interface HealthRoutesOptions {
  readonly view: ClusterModel;
  readonly registry: Registry;
}

/**
 * /healthz (the process answers), /readyz (the view has its initial lists) and /metrics. Leadership is no part of
 * readiness: a standby answers filter and prioritize from its own model and hands launches to the leader.
 */
export function healthRoutes(app: FastifyInstance, options: HealthRoutesOptions): Promise<void> {
  const { view, registry } = options;
  app.get('/healthz', () => 'ok');
  app.get('/readyz', async (_request, reply) => {
    // Answering from a half-filled cache would reject nodes it has not heard of yet.
    if (!view.isSynced) return reply.code(503).send('cluster view not synced yet');
    return 'ok';
  });
  app.get('/metrics', async (_request, reply) => {
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
  return Promise.resolve();
}
