import t from 'tap';
import { TokenBucket } from '../../../provisioner/kube/token-bucket.js';

void t.test('a token bucket starts full, refills at its rate and never holds more than its burst', (t) => {
  let now = 0;
  const bucket = new TokenBucket({ perSecond: 5, burst: 10 }, { now: () => now, sleep: () => Promise.resolve() });
  const accepted = (): number => { let n = 0; while (bucket.tryAccept()) n += 1; return n; };
  t.equal(accepted(), 10, 'the burst at once');
  now = 100;
  t.equal(accepted(), 0, 'half a token after 100 ms: none yet');
  now = 200;
  t.equal(accepted(), 1, 'one token after 200 ms');
  now = 60_000;
  t.equal(accepted(), 10, 'a long quiet spell fills it to the burst, not beyond');
  t.end();
});

void t.test('a rate limit that could never admit anything is refused when made', (t) => {
  const clock = { now: () => 0, sleep: () => Promise.resolve() };
  t.throws(() => new TokenBucket({ perSecond: 0, burst: 10 }, clock), /perSecond > 0/);
  t.throws(() => new TokenBucket({ perSecond: 5, burst: 0.5 }, clock), /burst >= 1/);
  t.end();
});
