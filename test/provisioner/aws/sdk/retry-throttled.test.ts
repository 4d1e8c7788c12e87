import t from 'tap';
import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../../domain/clock.js';
import { ThrottledError } from '../../../../domain/cloud/errors.js';
import {
  backoffDelayMs,
  defaultRetryPolicy,
  retryThrottled,
  type RetryPolicy,
} from '../../../../provisioner/aws/sdk/retry-throttled.js';
import { RecordingClock } from '../../../fakes/recording-clock.js';

const throttle = (): EC2ServiceException =>
  new EC2ServiceException({
    name: 'RequestLimitExceeded',
    $fault: 'client',
    $metadata: {},
    message: 'slow down',
  });

function policy(random = 0.999): RetryPolicy & { clock: RecordingClock } {
  return {
    clock: new RecordingClock(),
    maxAttempts: 5,
    baseDelayMs: 100,
    maxDelayMs: 500,
    random: () => random,
  };
}

void t.test('backoff grows exponentially under a cap, scaled by jitter', (t) => {
  const p = policy(0.5);
  t.same(
    [0, 1, 2, 3, 4].map((a) => backoffDelayMs(p, a)),
    [50, 100, 200, 250, 250],
  );
  t.equal(backoffDelayMs(policy(0), 3), 0, 'full jitter may not wait at all');
  t.end();
});

void t.test('throttled calls are retried until they succeed', async (t) => {
  const p = policy();
  let calls = 0;
  const result = await retryThrottled(p, 'creating fleet', () => {
    calls++;
    return calls < 3 ? Promise.reject(throttle()) : Promise.resolve('ok');
  });
  t.equal(result, 'ok');
  t.same(p.clock.sleeps, [99, 199]);
});

void t.test(
  'after the last attempt the throttle becomes a ThrottledError with the cause',
  async (t) => {
    const p = policy();
    const e: unknown = await retryThrottled(p, 'creating fleet', () =>
      Promise.reject(throttle()),
    ).catch((err: unknown) => err);
    t.ok(e instanceof ThrottledError);
    t.match((e as Error).message, /creating fleet: throttled 5 times/);
    t.equal(p.clock.sleeps.length, 4);
  },
);

void t.test('other errors are not retried', async (t) => {
  const p = policy();
  const boom = new Error('boom');
  await t.rejects(
    retryThrottled(p, 'x', () => Promise.reject(boom)),
    boom,
  );
  t.same(p.clock.sleeps, []);
});

void t.test('the default policy sleeps on the injected clock', async (t) => {
  const clock = new FakeClock();
  const p = defaultRetryPolicy(clock);
  t.match(p, { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 5_000 });
  let calls = 0;
  const pending = retryThrottled({ ...p, random: () => 0.5 }, 'x', () =>
    ++calls === 1 ? Promise.reject(throttle()) : Promise.resolve(calls),
  );
  while (clock.pendingSleepers === 0) await new Promise((r) => setImmediate(r));
  clock.step(50);
  t.equal(await pending, 2);
});
