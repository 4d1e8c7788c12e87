import fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Registry } from 'prom-client';
import { defaultAdmissionGates, type AdmissionGates } from '../domain/api/feature-gates.js';
import { registerAdmissionRoutes } from './admission-routes.js';
import { registerHealthRoutes } from './health-routes.js';
import { WebhookMetrics } from './metrics.js';
import type { AdmissionConfig, AdmissionProcessor } from './processor.js';
import { guardBinding } from './processors/binding-guard.js';
import {
  mutateEC2NodeClass, mutateNodePool, validateCapacityBuffer, validateEC2NodeClass, validateNodeClaim, validateNodeOverlay, validateNodePool,
} from './processors/karpenter-processors.js';
import { mutatePod, validatePod } from './processors/pod-processors.js';

/** Every admission route, in one list (paths are what manifests/webhooks/ points at). */
export const admissionProcessors: readonly AdmissionProcessor[] = [
  mutateNodePool, validateNodePool, mutateEC2NodeClass, validateEC2NodeClass, validateNodeClaim, validateNodeOverlay,
  validateCapacityBuffer, mutatePod, validatePod, guardBinding,
];

export const defaultProductServiceAccount = 'system:serviceaccount:nodesmith:nodesmith';
export const defaultExcludedNamespaces: readonly string[] = ['kube-system', 'nodesmith'];
/** An UPDATE review carries object and oldObject, each up to the API server's 3 MiB. */
export const defaultBodyLimit = 8 * 1024 * 1024;

export interface WebhookServerOptions {
  readonly productServiceAccount?: string;
  readonly excludedNamespaces?: readonly string[];
  /** The feature gates the controller runs with; default Karpenter's (StaticCapacity off). */
  readonly gates?: AdmissionGates;
  /** PEM cert and key; when given the server is HTTPS (the API server calls webhooks over TLS only). */
  readonly https?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  readonly registry?: Registry;
  readonly bodyLimit?: number;
  /** A pino logger to use (e.g. a child of the process logger), fastify logger options, or false (default). */
  readonly logger?: FastifyServerOptions['logger'] | FastifyBaseLogger;
  /** Readiness beyond "the server is up" (e.g. certificates loaded); default always ready. */
  readonly isReady?: () => boolean;
}

function isLoggerInstance(logger: WebhookServerOptions['logger']): logger is FastifyBaseLogger {
  return typeof logger === 'object' && typeof (logger as Partial<FastifyBaseLogger>).child === 'function';
}

/** fastify 5 takes a ready logger only as `loggerInstance`; options or booleans go to `logger`. */
function loggerOptions(logger: WebhookServerOptions['logger']): Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> {
  if (isLoggerInstance(logger)) return { loggerInstance: logger };
  return { logger: logger ?? false };
}

/** Builds the webhook server with every route registered. It never listens: see serveWebhooks. */
export function buildWebhookServer(options: WebhookServerOptions = {}): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? defaultBodyLimit;
  const app = fastify({
    ...loggerOptions(options.logger),
    // Access logs would mostly be /healthz and /metrics; each review logs its own line with its uid.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    // controller-runtime's webhook server values, so the API server's keep-alive pool is reused.
    keepAliveTimeout: 65_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
    ...(options.https ? { https: { cert: options.https.cert, key: options.https.key } } : {}),
  }) as unknown as FastifyInstance;
  const metrics = new WebhookMetrics(options.registry ?? new Registry());
  const config: AdmissionConfig = Object.freeze({
    productServiceAccount: options.productServiceAccount ?? defaultProductServiceAccount,
    excludedNamespaces: [...(options.excludedNamespaces ?? defaultExcludedNamespaces)],
    gates: options.gates ?? defaultAdmissionGates,
  });
  void app.register((scope, _opts, done) => {
    registerAdmissionRoutes(scope, { processors: admissionProcessors, config, metrics, bodyLimit });
    done();
  });
  registerHealthRoutes(app, { registry: metrics.registry, isReady: options.isReady ?? (() => true) });
  return app;
}
