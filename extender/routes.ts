import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pod } from '../domain/core/pod.js';
import type { Binding } from './binding.js';
import { forwardedHeader, type BindForwarder, type ForwardedBindArgs } from './bind-forward.js';
import { podKey } from '../domain/core/object-key.js';
import type { ClusterModel } from '../provisioner/index.js';
import { filterNodes } from './filter.js';
import { outcomeOfStatus, type ExtenderMetrics, type Outcome, type Verb } from './metrics.js';
import { prioritizeNodes } from './prioritize.js';
import { maxNestingDepth, nestingDepth } from '../domain/api/nesting-depth.js';
import { QuantityError } from '../domain/quantity.js';
import type { ResourceList } from '../domain/resource-list.js';
import {
  BindingArgsSchema, ErrorResultSchema, ExtenderArgsSchema, FilterResultSchema, HostPriorityListSchema,
  type ExtenderArgs, type FilterResult,
} from './schemas.js';
import { createValidatorCompiler } from './validator.js';

export interface ExtenderRoutesOptions {
  readonly view: ClusterModel;
  readonly binding: Binding;
  readonly metrics: ExtenderMetrics;
  /** With several replicas: binds go to the leader, which alone binds (bind-forward.ts). */
  readonly forwarder?: BindForwarder | undefined;
}

/**
 * Binds here, or hands the bind to the leader when another replica leads. A bind handed over is bound here, never
 * handed on: the Lease may have moved meanwhile, and the replica it was handed to binds rather than bounce it.
 */
async function bindOrForward(options: ExtenderRoutesOptions, request: FastifyRequest<{ Body: ForwardedBindArgs }>, gone: AbortSignal): Promise<string> {
  const { binding, forwarder, metrics } = options;
  const args = request.body;
  const handedOver = request.headers[forwardedHeader] !== undefined;
  if (handedOver && args.Forwarded !== undefined) binding.noteForwarded(args, args.Forwarded);
  const url = handedOver ? undefined : forwarder?.leaderUrl();
  if (url === undefined || forwarder === undefined) return binding.bind(args, gone);
  const known = binding.forwardable(podKey(args.PodNamespace, args.PodName), args.PodUID);
  const plain = { PodName: args.PodName, PodNamespace: args.PodNamespace, PodUID: args.PodUID, Node: args.Node };
  try {
    const error = await forwarder.forward(url, known === undefined ? plain : { ...plain, Forwarded: known }, gone);
    metrics.forwarded(error === '' ? 'bound' : 'refused');
    return error;
  } catch (error) {
    metrics.forwarded('unanswered');
    return `${error instanceof Error ? error.message : String(error)}; kube-scheduler retries the pod`;
  }
}

/** A client mistake the reply explains; the error handler turns it into a 400. */
class BadRequestError extends Error {
  readonly statusCode = 400;
}

/** The candidates, from NodeNames (nodeCacheCapable) or from the full Node objects. */
function candidateNames(args: ExtenderArgs): string[] {
  if (args.NodeNames !== undefined && args.NodeNames !== null) return args.NodeNames;
  return (args.Nodes?.items ?? []).map((node) => node.metadata.name);
}

function candidateCount(args: ExtenderArgs): number {
  return args.NodeNames?.length ?? args.Nodes?.items?.length ?? 0;
}

function passedCount(reply: FilterResult): number {
  return reply.NodeNames?.length ?? (reply.Nodes as { items: unknown[] } | null)?.items.length ?? 0;
}

/**
 * The top-level field of a request body that nests deeper than any Kubernetes object, if one does. Such a value
 * would overflow the stack of code that walks it: the full-Nodes form's reply echoes the Node objects through
 * JSON.stringify, which failed on a Node nested 5,000 levels deep.
 */
function tooDeepField(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  return Object.entries(body).find(([, value]) => nestingDepth(value) > maxNestingDepth)?.[0];
}

function requestsOf(view: ClusterModel, pod: Pod): ResourceList {
  try {
    return view.requestsFor(pod);
  } catch (error) {
    if (error instanceof QuantityError) throw new BadRequestError(`Pod resources: ${error.message}`);
    throw error;
  }
}

/** The full Node objects of the nodes that passed (the form without nodeCacheCapable). */
function passedNodes(args: ExtenderArgs, passedNames: readonly string[]): unknown[] {
  const passed = new Set(passedNames);
  return (args.Nodes?.items ?? []).filter((node) => passed.has(node.metadata.name));
}

function filterReply(args: ExtenderArgs, view: ClusterModel, requests: ResourceList): FilterResult {
  const names = candidateNames(args);
  const outcome = filterNodes(view, args.Pod, requests, names);
  const fullNodes = args.NodeNames === undefined || args.NodeNames === null;
  return {
    // Reply in the form we were asked in: kube-scheduler reads Nodes unless it is nodeCacheCapable.
    Nodes: fullNodes ? { items: passedNodes(args, outcome.passed) } : null,
    // Often kube-scheduler's own list (filterNodes copies only when a node fails); nothing mutates it from here.
    NodeNames: fullNodes ? null : (outcome.passed as string[]),
    FailedNodes: outcome.failed,
    FailedAndUnresolvableNodes: outcome.unresolvable,
    Error: '',
  };
}

/**
 * Aborts when the caller closes the connection before the reply is written: kube-scheduler does so when it stops
 * waiting for a call (its extender httpTimeout), and then retries the pod on its own.
 */
function callerGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** A field of a request body that may be anything (a call rejected before validation still logs its reply). */
function bodyField(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * What the 'request completed' line (info, one per call) says of a filter or bind reply: the pod,
 * and for a bind the node, beside the status. A bench times each pod's first filter and its bind to a virtual node
 * from these lines (docs/benchmarks.md) without a line more at info; the debug 'filtered nodes' line is off there.
 */
const replyFields = {
  filter: (reply: FastifyReply): Record<string, unknown> => {
    const metadata = bodyField(bodyField(reply.request.body, 'Pod'), 'metadata');
    return { statusCode: reply.statusCode, pod: `${text(bodyField(metadata, 'namespace'))}/${text(bodyField(metadata, 'name'))}` };
  },
  bind: (reply: FastifyReply): Record<string, unknown> => {
    const body = reply.request.body;
    return { statusCode: reply.statusCode, pod: `${text(bodyField(body, 'PodNamespace'))}/${text(bodyField(body, 'PodName'))}`, node: text(bodyField(body, 'Node')) };
  },
};

/**
 * POST /filter, /prioritize and /bind. Encapsulated: its validator, error handler and hooks stay here.
 * Handlers only parse, call the pure verb function and wrap the result.
 */
export function extenderRoutes(app: FastifyInstance, options: ExtenderRoutesOptions): Promise<void> {
  const { view, binding, metrics } = options;
  const outcomes = new WeakMap<FastifyRequest, Outcome>();
  app.setValidatorCompiler(createValidatorCompiler());
  // Replies are built here from typed values, so the schema-driven serializer adds nothing but garbage: it
  // concatenates a 500-name NodeNames list string by string (a third of the bytes a filter call allocated).
  // JSON.stringify's result is then copied once into a Buffer, outside the V8 heap: handed a string, fastify
  // measures it (flattening it on the heap) and the socket copies it again, so each reply went through the young
  // generation twice and a filter call scavenged ~10% more often. fastify sends a Buffer as it is. The response
  // schemas still document the wire format.
  app.setSerializerCompiler(() => (data) => Buffer.from(JSON.stringify(data)) as unknown as string);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (error.validation !== undefined || (status >= 400 && status < 500)) {
      request.log.debug({ err: error.message }, 'rejected malformed extender request');
      return reply.code(error.validation === undefined ? status : 400).send({ Error: error.message });
    }
    request.log.error({ err: error }, 'extender request failed');
    return reply.code(500).send({ Error: 'internal error in the extender; see its log' });
  });
  // The one access line of a call (app.ts turns fastify's pair off), with the reply's fields as the route's
  // serializer writes them: the line fastify wrote on completion, without its 'incoming request' twin.
  const observe = (verb: Verb) => async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const outcome = outcomeOfStatus(reply.statusCode) ?? outcomes.get(request) ?? 'ok';
    metrics.observe(verb, outcome, reply.elapsedTime / 1000);
    request.log.info({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  };
  const errorReplies = { 400: ErrorResultSchema, 413: ErrorResultSchema, 415: ErrorResultSchema, 500: ErrorResultSchema };
  // Every verb, before the schema or a handler reads the body.
  app.addHook('preValidation', (request, _reply, done) => {
    const field = tooDeepField(request.body);
    done(field === undefined ? undefined : new BadRequestError(`${field} nests more than ${String(maxNestingDepth)} levels deep; no Kubernetes object does`));
  });

  app.post<{ Body: ExtenderArgs }>('/filter', {
    schema: { body: ExtenderArgsSchema, response: { 200: FilterResultSchema, ...errorReplies } },
    onResponse: observe('filter'),
    logSerializers: { res: replyFields.filter },
  }, (request) => {
    const requests = requestsOf(view, request.body.Pod);
    const reply = filterReply(request.body, view, requests);
    binding.notePod(request.body.Pod, requests);
    const { metadata } = request.body.Pod;
    // Counts only: a debug line must not cost O(candidates) when debug is off.
    request.log.debug({ pod: `${metadata.namespace}/${metadata.name}`, candidates: candidateCount(request.body), passed: passedCount(reply) }, 'filtered nodes');
    return reply;
  });

  app.post<{ Body: ExtenderArgs }>('/prioritize', {
    schema: { body: ExtenderArgsSchema, response: { 200: HostPriorityListSchema, ...errorReplies } },
    onResponse: observe('prioritize'),
  }, (request) => {
    const { Pod: pod } = request.body;
    return prioritizeNodes(view, pod, requestsOf(view, pod), candidateNames(request.body));
  });

  app.post<{ Body: ForwardedBindArgs }>('/bind', {
    schema: { body: BindingArgsSchema, response: { 200: ErrorResultSchema, ...errorReplies } },
    onResponse: observe('bind'),
    logSerializers: { res: replyFields.bind },
  }, async (request, reply) => {
    const gone = callerGone(reply);
    const error = await bindOrForward(options, request, gone);
    // fastify writes no access line for a call whose caller hung up; a Binding sent before that still landed.
    if (gone.aborted) request.log.info({ pod: `${request.body.PodNamespace}/${request.body.PodName}`, node: request.body.Node, err: error === '' ? undefined : error }, 'bind ended after kube-scheduler stopped waiting');
    if (error !== '') {
      outcomes.set(request, 'error');
      request.log.info({ pod: `${request.body.PodNamespace}/${request.body.PodName}`, node: request.body.Node, err: error }, 'bind failed');
    }
    return { Error: error };
  });
  return Promise.resolve();
}
