import { Ajv } from 'ajv';
import { maxNestingDepth, nestingDepth } from '../domain/api/nesting-depth.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AdmissionReviewRequest, AdmissionReviewResponse, kindKey,
  type AdmissionRequest, type AdmissionResponse, type AdmissionReviewResponse as ReviewResponse,
} from './admission-review.js';
import { allow, deny } from './admission-response.js';
import type { WebhookMetrics } from './metrics.js';
import type { AdmissionConfig, AdmissionProcessor } from './processor.js';

/**
 * fastify's own ajv removes additional properties, fills defaults and coerces types: on an
 * admission route that would rewrite `request.object` before we diff it. This one only checks.
 */
function envelopeAjv(): Ajv {
  return new Ajv({ allErrors: true, removeAdditional: false, useDefaults: false, coerceTypes: false, strict: false });
}

export interface AdmissionRoutesOptions {
  readonly processors: readonly AdmissionProcessor[];
  readonly config: AdmissionConfig;
  readonly metrics: WebhookMetrics;
  readonly bodyLimit: number;
}

function decide(processor: AdmissionProcessor, request: AdmissionRequest, config: AdmissionConfig): AdmissionResponse {
  // The processors (and the JSON Patch diff) walk objects recursively; no real object nests this deep.
  for (const field of ['object', 'oldObject'] as const) {
    if (nestingDepth(request[field]) > maxNestingDepth) return deny(request.uid, `request.${field} nests more than ${String(maxNestingDepth)} levels deep; no Kubernetes object does`, 400);
  }
  const key = kindKey(request);
  if (!processor.kinds.includes(key)) {
    return allow(request.uid, [`nodesmith webhook ${processor.path} does not handle kind ${key}; allowed without checks`]);
  }
  return processor.process(request, config);
}

function answer(processor: AdmissionProcessor, request: FastifyRequest, opts: AdmissionRoutesOptions): ReviewResponse {
  const review = request.body as AdmissionReviewRequest;
  const started = performance.now();
  let response: AdmissionResponse;
  try {
    response = decide(processor, review.request, opts.config);
  } catch (error: unknown) {
    // A bug of ours must not become an HTTP 500 (the API server would then apply failurePolicy
    // with an opaque message); deny with the cause instead and count it.
    opts.metrics.error(processor.id, 'internal');
    request.log.error({ err: error, admissionUid: review.request.uid, component: processor.id }, 'admission failed');
    response = deny(review.request.uid, `internal error in ${processor.id}: ${error instanceof Error ? error.message : String(error)}`, 500);
  }
  opts.metrics.observe(processor.id, response.allowed, (performance.now() - started) / 1000);
  const fields = { admissionUid: review.request.uid, component: processor.id, kind: review.request.kind.kind, name: review.request.name };
  if (response.allowed) request.log.debug(fields, 'allowed admission review');
  else request.log.info({ ...fields, message: response.status?.message }, 'denied admission review');
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

/** Malformed JSON, a body over the limit, a wrong content type or a bad envelope: all 400 with a message. */
function badRequest(opts: AdmissionRoutesOptions) {
  const idByPath = new Map(opts.processors.map((p) => [p.path, p.id]));
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    opts.metrics.error(idByPath.get(request.routeOptions.url ?? '') ?? 'unknown', 'bad_request');
    const message = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
      ? `request body exceeds the limit of ${opts.bodyLimit} bytes`
      : error.validation ? `invalid AdmissionReview: ${error.message}` : `bad request: ${error.message}`;
    return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message });
  };
}

/** One POST route per processor; the handler only parses, calls the processor and wraps the result. */
export function registerAdmissionRoutes(app: FastifyInstance, opts: AdmissionRoutesOptions): void {
  const ajv = envelopeAjv();
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  app.setErrorHandler(badRequest(opts));
  for (const processor of opts.processors) {
    app.post(processor.path, {
      bodyLimit: opts.bodyLimit,
      schema: { body: AdmissionReviewRequest, response: { 200: AdmissionReviewResponse } },
    }, (request) => Promise.resolve(answer(processor, request, opts)));
  }
}
