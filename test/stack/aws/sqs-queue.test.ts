import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import t from 'tap';
import { isQueueUnavailableError, isThrottledError } from '../../../domain/cloud/errors.js';
import { SqsInterruptionQueue } from '../../../provisioner/aws/interruption-queue/sqs-queue.js';
import { startFaultProxy } from '../fault-proxy.js';
import { freePort } from '../free-port.js';
import { startMoto } from '../moto.js';

const moto = await startMoto();
t.teardown(() => moto.stop());
const proxy = await startFaultProxy(moto.endpoint);
t.teardown(() => proxy.stop());
const client = (endpoint: string): SQSClient => {
  const sqs = new SQSClient({ region: moto.region, endpoint, credentials: moto.credentials, maxAttempts: 1 });
  t.teardown(() => { sqs.destroy(); });
  return sqs;
};
const direct = client(moto.endpoint);
const viaProxy = client(proxy.endpoint);
const { QueueUrl: url = '' } = await direct.send(new CreateQueueCommand({ QueueName: 'interruptions' }));

async function visibleAndInFlight(): Promise<number> {
  const out = await direct.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessages) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible);
}

void t.test('receive takes at most ten messages with their send time, and delete removes them', async (t) => {
  for (let i = 0; i < 12; i++) await direct.send(new SendMessageCommand({ QueueUrl: url, MessageBody: `{"n":${String(i)}}` }));
  const queue = new SqsInterruptionQueue(viaProxy, 'interruptions');
  t.equal(queue.name, 'interruptions');
  const first = await queue.receive();
  t.equal(first.length, 10, 'SQS hands out at most ten');
  t.ok(first.every((m) => m.body.startsWith('{"n":') && m.receiptHandle !== '' && (m.sentAtMs ?? 0) > 0), 'body, receipt handle and SentTimestamp come through');
  const second = await queue.receive();
  t.equal(second.length, 2, 'received messages stay invisible, so the rest come next');
  for (const m of [...first, ...second]) await queue.delete(m);
  t.equal(await visibleAndInFlight(), 0, 'every message is gone from the queue');
  const receive = proxy.requests.length;
  t.ok(proxy.actions.slice(0, receive).includes('ReceiveMessage'));
});

void t.test('a queue URL is accepted as well as a name', async (t) => {
  await direct.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'by url' }));
  const queue = new SqsInterruptionQueue(direct, url);
  t.equal(queue.name, 'interruptions');
  const [m] = await queue.receive();
  t.equal(m?.body, 'by url');
  if (m !== undefined) await queue.delete(m);
});

void t.test('stopping cuts an empty long poll short', async (t) => {
  const queue = new SqsInterruptionQueue(direct, 'interruptions');
  const abort = new AbortController();
  const receiving = queue.receive(abort.signal);
  setTimeout(() => { abort.abort(); }, 300);
  await t.rejects(receiving, { name: 'AbortError' }, 'the 20 s poll ends with the abort, not after 20 s');
});

void t.test('queue failures become domain errors the controller can label', async (t) => {
  const missing = new SqsInterruptionQueue(direct, 'no-such-queue');
  const notFound = await missing.receive().catch((e: unknown) => e);
  t.ok(isQueueUnavailableError(notFound) && notFound.reason === 'not_found', `a missing queue is not_found: ${String(notFound)}`);

  proxy.throttle('ReceiveMessage', 1, 'ThrottlingException');
  const throttled = await new SqsInterruptionQueue(viaProxy, url).receive().catch((e: unknown) => e);
  t.ok(isThrottledError(throttled), `throttling is a ThrottledError: ${String(throttled)}`);

  const closed = `http://127.0.0.1:${String(await freePort())}`;
  const unreachable = await new SqsInterruptionQueue(client(closed), 'interruptions').receive().catch((e: unknown) => e);
  t.ok(isQueueUnavailableError(unreachable) && unreachable.reason === 'unreachable', `nothing listening is unreachable: ${String(unreachable)}`);
});
