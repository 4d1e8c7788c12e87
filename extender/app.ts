import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ClusterModel, Materializer, PodBinder } from '../provisioner/index.js';
import { Binding } from './binding.js';
import { BindForwarder, type BindForwardingOptions } from './bind-forward.js';
import { healthRoutes } from './health-routes.js';
import { createExtenderMetrics } from './metrics.js';
import { extenderRoutes } from './routes.js';

/** Everything the extender needs, built by the caller (main.ts or a test) and passed in explicitly. */
export interface ExtenderAppOptions {
  /** The one cluster model (provisioner/state), read-only here but for bind reservations. */
  readonly view: ClusterModel;
  readonly binder: PodBinder;
  /** Absent: binds to virtual nodes fail with a clear Error (standalone extender without a provisioner). */
  readonly materializer?: Materializer | undefined;
  readonly registry: Registry;
  /** A pino logger to use, or false for none (tests). */
  readonly logger?: FastifyBaseLogger | false;
  /** Without `logger`: fastify creates a pino logger at this level. */
  readonly logLevel?: string;
  /** Full-node requests carry every candidate Node object; 5,000 nodes can exceed 50 MiB. Default 128 MiB. */
  readonly bodyLimit?: number;
  /** Binds give each pod its node's rank as its pod-deletion-cost (binding.ts); default true. */
  readonly scaleInRank?: boolean | undefined;
  /** With several replicas: where the leader's extender is, to hand it every bind (bind-forward.ts). */
  readonly forwarding?: BindForwardingOptions | undefined;
  /** TLS material (PEM) when kube-scheduler is configured with enableHTTPS. */
  readonly https?: { readonly key: string | Buffer; readonly cert: string | Buffer } | undefined;
}

function loggerOptions(options: ExtenderAppOptions): { logger: false | { level: string } } | { loggerInstance: FastifyBaseLogger } {
  if (options.logger !== undefined && options.logger !== false) return { loggerInstance: options.logger };
  if (options.logger === undefined && options.logLevel !== undefined) return { logger: { level: options.logLevel } };
  return { logger: false };
}

/** Builds the extender's fastify app. It never listens: serve() does, tests use inject(). */
export function build(options: ExtenderAppOptions): FastifyInstance {
  const { view, registry } = options;
  const common = {
    bodyLimit: options.bodyLimit ?? 128 * 1024 * 1024,
    // Above kube-scheduler's bind httpTimeout (60 s in our configuration) so a launch is not cut short here.
    requestTimeout: 120_000,
    keepAliveTimeout: 75_000,
    return503OnClosing: true,
    ...loggerOptions(options),
    // One access line per call, not fastify's two: kube-scheduler calls filter and bind for every pod, and the log
    // was a burst's largest write (1,000 pods: about 5,000 lines, a tenth of the extender's CPU in a profile, on
    // the event loop that answers kube-scheduler). The verbs write the line themselves (routes.ts); /healthz and
    // /metrics write none, as the webhooks' server.
    logController: new LogController({ disableRequestLogging: true }),
  };
  // With TLS, HTTP/2 as well: kube-scheduler's Go transport then multiplexes every call over one connection.
  // Over HTTP/1.1 it keeps only two idle connections, so concurrent binds open (and with TLS, handshake) a new
  // one for about every fourth call. allowHTTP1 keeps HTTP/1.1 clients working.
  const app = (options.https === undefined
    ? Fastify(common)
    // forceCloseConnections on an HTTP/2 server closes each session gracefully: streams in flight (a bind waiting
    // on a launch) finish, and idle sessions no longer hold close() open.
    : Fastify({ ...common, http2: true, forceCloseConnections: true, https: { allowHTTP1: true, key: options.https.key, cert: options.https.cert } })) as unknown as FastifyInstance;
  const binding = new Binding({ view, binder: options.binder, materializer: options.materializer, scaleInRank: options.scaleInRank ?? true });
  const metrics = createExtenderMetrics(registry);
  const forwarder = options.forwarding === undefined ? undefined : new BindForwarder(options.forwarding);
  if (forwarder !== undefined) app.addHook('onClose', (_app, done) => { forwarder.close(); done(); });
  void app.register(extenderRoutes, { view, binding, metrics, forwarder });
  void app.register(healthRoutes, { view, registry });
  return app;
}
