import Fastify, { type FastifyInstance } from 'fastify';
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

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6: a connection from inside the pod's own network namespace. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const debugFromOutside = 'the debug endpoints answer only connections from inside the pod: run `kubectl port-forward -n NAMESPACE deploy/nodesmith 8080`, '
  + 'then `nodesmith disruption --leader http://127.0.0.1:8080` (the API server checks your right to port-forward)';

/** The health server's routes, unbound: startHealthServer listens; tests inject. */
export function healthApp(options: Omit<HealthServerOptions, 'host' | 'port'>): FastifyInstance {
  const app = Fastify({ logger: false });
  // /healthz, /readyz and /metrics are for the kubelet and Prometheus, from anywhere in the cluster. /debug/* shows
  // the cluster's workloads and costs and runs simulations: only from inside the pod, which in Kubernetes means
  // through kubectl port-forward, so the API server's authentication and RBAC (pods/portforward) guard it.
  app.addHook('onRequest', async (request, reply) => {
    // The matched route, not the raw URL: a percent-encoded path reaches the same handler.
    if ((request.routeOptions.url ?? '').startsWith('/debug/') && !isLoopback(request.socket.remoteAddress)) await reply.code(403).send({ message: debugFromOutside });
  });
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
  return app;
}

/** /healthz, /readyz, /metrics and /debug/consolidation for the process as a whole (the provisioner has no other server). */
export async function startHealthServer(options: HealthServerOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const app = healthApp(options);
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
