import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { InterruptionMessage, MessageKind } from './message-kinds.js';

const instanceId = Type.String({ pattern: '^i-[0-9a-f]{8,17}$' });

/** The EventBridge envelope every message must have (Karpenter's messages.Metadata). */
const Envelope = Type.Object({
  version: Type.String(),
  id: Type.String({ minLength: 1 }),
  'detail-type': Type.String(),
  source: Type.String(),
  time: Type.String({ minLength: 1 }),
  detail: Type.Object({}),
});
type Envelope = Static<typeof Envelope>;

const InstanceDetail = Type.Object({ 'instance-id': instanceId });
const StateChangeDetail = Type.Object({ 'instance-id': instanceId, state: Type.String() });
const HealthDetail = Type.Object({
  service: Type.String(),
  eventTypeCategory: Type.String(),
  affectedEntities: Type.Optional(Type.Array(Type.Object({ entityValue: Type.String() }))),
});

/** Why a message was discarded without action; also the metric's `reason` label. */
export type DiscardReason = 'malformed' | 'invalid';

export type ParseResult =
  | { readonly ok: true; readonly message: InterruptionMessage }
  | { readonly ok: false; readonly reason: DiscardReason; readonly error: string };

interface DetailParser {
  readonly schema: TSchema;
  /** The kind and instances of a valid detail; `no_op` for events we do not act on. */
  readonly read: (detail: never) => { kind: MessageKind; instanceIds: string[] };
}

const stoppedStates = new Set(['stopping', 'stopped']);
const terminatedStates = new Set(['shutting-down', 'terminated']);

function stateChangeKind(state: string): MessageKind {
  const s = state.toLowerCase();
  if (stoppedStates.has(s)) return 'instance_stopped';
  return terminatedStates.has(s) ? 'instance_terminated' : 'no_op';
}

function single(kind: MessageKind): DetailParser {
  return {
    schema: InstanceDetail,
    read: (d: Static<typeof InstanceDetail>) => ({ kind, instanceIds: [d['instance-id']] }),
  };
}

/** Keyed like Karpenter's parser map: version, source and detail-type. */
const parsers = new Map<string, DetailParser>([
  ['0|aws.ec2|EC2 Spot Instance Interruption Warning', single('spot_interrupted')],
  ['0|aws.ec2|EC2 Instance Rebalance Recommendation', single('rebalance_recommendation')],
  ['0|aws.ec2|EC2 Capacity Reservation Instance Interruption Warning', single('capacity_reservation_interrupted')],
  ['0|aws.ec2|EC2 Instance State-change Notification', {
    schema: StateChangeDetail,
    read: (d: Static<typeof StateChangeDetail>) => ({ kind: stateChangeKind(d.state), instanceIds: [d['instance-id']] }),
  }],
  ['0|aws.health|AWS Health Event', {
    schema: HealthDetail,
    // Only scheduled changes to EC2 concern us; AWS Health also reports other services and categories.
    read: (d: Static<typeof HealthDetail>) =>
      d.service === 'EC2' && d.eventTypeCategory === 'scheduledChange'
        ? { kind: 'scheduled_change', instanceIds: (d.affectedEntities ?? []).map((e) => e.entityValue).filter((v) => Value.Check(instanceId, v)) }
        : { kind: 'no_op', instanceIds: [] },
  }],
]);

function firstError(schema: TSchema, value: unknown, where: string): string | undefined {
  const error = Value.Errors(schema, value).First();
  return error === undefined ? undefined : `${where}${error.path}: ${error.message}`;
}

/**
 * Parses and validates one queue message body as an EventBridge event. Unknown event types are a
 * valid `no_op` (the queue may carry more than we handle, as in Karpenter); a body that is not
 * JSON is `malformed`, and a known type whose fields are wrong is `invalid`.
 */
export function parseMessage(body: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e: unknown) {
    return { ok: false, reason: 'malformed', error: `not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const envelopeError = firstError(Envelope, raw, 'event');
  if (envelopeError !== undefined) return { ok: false, reason: 'invalid', error: envelopeError };
  const event = raw as Envelope;
  const startTimeMs = Date.parse(event.time);
  if (!Number.isFinite(startTimeMs)) return { ok: false, reason: 'invalid', error: `event/time: not a timestamp: "${event.time}"` };
  const parser = parsers.get(`${event.version}|${event.source}|${event['detail-type']}`);
  if (parser === undefined) return { ok: true, message: { kind: 'no_op', id: event.id, instanceIds: [], startTimeMs } };
  const detailError = firstError(parser.schema, event.detail, 'event/detail');
  if (detailError !== undefined) return { ok: false, reason: 'invalid', error: `${event['detail-type']}: ${detailError}` };
  const { kind, instanceIds } = parser.read(event.detail as never);
  return { ok: true, message: { kind, id: event.id, instanceIds, startTimeMs } };
}
