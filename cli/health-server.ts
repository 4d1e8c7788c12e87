import Fastify from 'fastify';
import type { Registry } from 'prom-client';
import { renameMetricsNamespace } from './metrics-namespace.js';

export interface HealthServerOptions {
  readonly host: string;
  readonly port: number;
  readonly metricsNamespace?: string;
  readonly registry: Registry;
  readonly isReady: () => boolean;
  /** `GET /debug/consolidation`: what consolidation would do now and what its last passes found; absent when it is off. */
  readonly consolidation?: (() => Promise<unknown>) | undefined;
}

/** /healthz, /readyz, /metrics and /debug/consolidation for the process as a whole (the provisioner has no other server). */
export async function startHealthServer(options: HealthServerOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (options.isReady()) return { status: 'ready' };
    return reply.code(503).send({ status: 'not ready: cluster state is not synced yet' });
  });
  app.get('/metrics', async (_req, reply) => reply.header('content-type', options.registry.contentType).send(renameMetricsNamespace(await options.registry.metrics(), options.metricsNamespace ?? 'nodesmith')));
  app.get('/debug/consolidation', async (_req, reply) => {
    const explain = options.consolidation;
    if (explain === undefined) return reply.code(404).send({ message: 'consolidation does not run in this process (no provisioner component)' });
    if (!options.isReady()) return reply.code(503).send({ message: 'cluster state is not synced yet' });
    try {
      return await explain();
    } catch (e) {
      return reply.code(503).send({ message: `the dry run failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  });
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
