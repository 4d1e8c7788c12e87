import t from 'tap';
import { parseMessage } from '../../../provisioner/interruption/parse-message.js';
import {
  capacityReservationInterruption,
  rebalanceRecommendation,
  scheduledChange,
  spotInterruption,
  stateChange,
} from '../../fixtures/interruption/eventbridge-events.js';

const id = 'i-0123456789abcdef0';
const time = '2026-11-23T14:00:00Z';

void t.test('each EventBridge event Karpenter handles parses to its kind and instance', (t) => {
  const cases: [string, string, string[]][] = [
    ['spot_interrupted', spotInterruption(id, { time, id: 'e1' }), [id]],
    ['rebalance_recommendation', rebalanceRecommendation(id, { time, id: 'e1' }), [id]],
    ['instance_stopped', stateChange(id, 'stopping', { time, id: 'e1' }), [id]],
    ['instance_stopped', stateChange(id, 'stopped', { time, id: 'e1' }), [id]],
    ['instance_terminated', stateChange(id, 'shutting-down', { time, id: 'e1' }), [id]],
    ['instance_terminated', stateChange(id, 'terminated', { time, id: 'e1' }), [id]],
    ['capacity_reservation_interrupted', capacityReservationInterruption(id, { time, id: 'e1' }), [id]],
    ['scheduled_change', scheduledChange([id, 'i-0aaaaaaaaaaaaaaa1'], { time, id: 'e1' }), [id, 'i-0aaaaaaaaaaaaaaa1']],
  ];
  for (const [kind, body, instanceIds] of cases) {
    t.same(parseMessage(body), { ok: true, message: { kind, id: 'e1', instanceIds, startTimeMs: Date.parse(time) } }, kind);
  }
  t.end();
});

void t.test('events nodesmith does not act on are valid no-ops', (t) => {
  t.match(parseMessage(stateChange(id, 'running')), { ok: true, message: { kind: 'no_op' } }, 'a state it does not react to');
  t.match(parseMessage(scheduledChange([id], { service: 'RDS' })), { ok: true, message: { kind: 'no_op' } }, 'a health event of another service');
  t.match(parseMessage(scheduledChange([id], { category: 'issue' })), { ok: true, message: { kind: 'no_op' } }, 'a health event of another category');
  const unknown = JSON.stringify({ version: '0', id: 'x', 'detail-type': 'Object Created', source: 'aws.s3', time, detail: {} });
  t.match(parseMessage(unknown), { ok: true, message: { kind: 'no_op', instanceIds: [] } }, 'an event type it does not know');
  t.end();
});

void t.test('a body that is not JSON is malformed, with the parser error', (t) => {
  t.match(parseMessage('{"version": "0", '), { ok: false, reason: 'malformed', error: /^not JSON: / });
  t.match(parseMessage(''), { ok: false, reason: 'malformed' });
  t.end();
});

void t.test('a known event with wrong fields is invalid and says which field', (t) => {
  const badId = spotInterruption('not-an-instance');
  t.match(parseMessage(badId), { ok: false, reason: 'invalid', error: /^EC2 Spot Instance Interruption Warning: event\/detail\/instance-id: / });
  const noDetail = JSON.stringify({ version: '0', id: 'x', 'detail-type': 'EC2 Spot Instance Interruption Warning', source: 'aws.ec2', time });
  t.match(parseMessage(noDetail), { ok: false, reason: 'invalid', error: /event\/detail/ });
  const badTime = spotInterruption(id, { time: 'yesterday' });
  t.match(parseMessage(badTime), { ok: false, reason: 'invalid', error: 'event/time: not a timestamp: "yesterday"' });
  t.match(parseMessage('[1, 2]'), { ok: false, reason: 'invalid' }, 'JSON that is not an object');
  t.match(parseMessage(stateChange(id, '')), { ok: true, message: { kind: 'no_op' } }, 'an empty state is a state we ignore');
  t.end();
});
