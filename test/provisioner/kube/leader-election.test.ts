import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { LeaderElector } from '../../../provisioner/kube/leader-election.js';
import { FakeLeaseApi } from '../../fakes/fake-lease-api.js';

function elector(api: FakeLeaseApi, clock: FakeClock, identity: string): LeaderElector {
  return new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity });
}

void t.test('of two electors on one Lease only the first to write leads', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const a = elector(api, clock, 'a');
  const b = elector(api, clock, 'b');
  t.equal(await a.tryAcquireOrRenew(), true);
  t.equal(await b.tryAcquireOrRenew(), false);
  clock.step(2000);
  t.equal(await a.tryAcquireOrRenew(), true, 'the leader renews');
  t.equal(await b.tryAcquireOrRenew(), false);
  t.equal(api.leases.get('nodesmith/provisioner')?.spec?.holderIdentity, 'a');
});

void t.test('a follower takes over a lease its holder stopped renewing, after the lease duration it observed', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const a = elector(api, clock, 'a');
  const b = elector(api, clock, 'b');
  await a.tryAcquireOrRenew(); // then a "crashes": no release, no renewals
  await b.tryAcquireOrRenew();
  clock.step(14_000);
  t.equal(await b.tryAcquireOrRenew(), false, 'not before 15 s without a renewal');
  clock.step(2000);
  t.equal(await b.tryAcquireOrRenew(), true, 'after 15 s the follower takes over');
  t.equal(api.leases.get('nodesmith/provisioner')?.spec?.leaseTransitions, 1);
});

void t.test('a leader that cannot renew steps down after the renew deadline, and on seeing another holder', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const stopped: string[] = [];
  const a = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'a', onStoppedLeading: () => stopped.push('a') });
  await a.tryAcquireOrRenew();
  api.down = true;
  clock.step(5000);
  t.equal(await a.tryAcquireOrRenew(), true, 'a failed renewal within the deadline keeps leadership');
  clock.step(6000);
  t.equal(await a.tryAcquireOrRenew(), false, 'past the 10 s renew deadline it steps down');
  t.same(stopped, ['a']);
  t.notOk(a.isLeader());
});

void t.test('stop releases the lease so the next elector leads without waiting for expiry', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const a = elector(api, clock, 'a');
  const b = elector(api, clock, 'b');
  a.start();
  while (!a.isLeader()) await new Promise((resolve) => setImmediate(resolve));
  await b.tryAcquireOrRenew();
  await a.stop();
  t.notOk(a.isLeader());
  t.equal(api.leases.get('nodesmith/provisioner')?.spec?.holderIdentity, '');
  t.equal(await b.tryAcquireOrRenew(), true, 'no clock step was needed');
});

void t.test('a leader whose renewal hangs stops counting as leader at the renew deadline, before the call returns', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const a = elector(api, clock, 'a');
  t.equal(await a.tryAcquireOrRenew(), true);
  // The API server takes the request and never answers (it is restarting): the attempt stays in flight.
  let answer: (lease: never) => void = () => undefined;
  const read = api.readNamespacedLease.bind(api);
  api.readNamespacedLease = () => new Promise((resolve) => { answer = resolve; });
  const inFlight = a.tryAcquireOrRenew();
  api.readNamespacedLease = read;
  clock.step(9_000);
  t.ok(a.isLeader(), 'within the deadline it still leads');
  clock.step(1_500);
  t.notOk(a.isLeader(), 'past the deadline it no longer leads, though the renewal has not returned');
  const b = elector(api, clock, 'b');
  clock.step(5_000);
  await b.tryAcquireOrRenew();
  t.equal(await b.tryAcquireOrRenew(), false, 'b saw a record and waits out the lease duration it observed');
  clock.step(15_000);
  t.equal(await b.tryAcquireOrRenew(), true, 'b takes the Lease');
  t.notOk(a.isLeader(), 'a never leads again meanwhile');
  answer({ metadata: { name: 'provisioner', namespace: 'nodesmith' }, spec: { holderIdentity: 'a' } } as never);
  t.equal(await inFlight, false, 'the late answer (the Lease as it was when a asked) fails to renew and, past the deadline, a steps down');
  t.notOk(a.isLeader());
});

void t.test('the holder publishes its annotations on the Lease, the other replica reads them while the hold lasts, and a release takes them off', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const url = { 'nodesmith.io/extender-url': 'http://10.0.0.1:8444' };
  const a = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'a', annotations: url });
  const b = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'b', annotations: { 'nodesmith.io/extender-url': 'http://10.0.0.2:8444' } });
  await a.tryAcquireOrRenew();
  t.same(api.leases.get('nodesmith/provisioner')?.metadata?.annotations, url, 'written when the Lease is created');
  t.equal(a.leader(), undefined, 'the leader itself has no other leader');
  t.equal(b.leader(), undefined, 'nothing known before the first read');
  await b.tryAcquireOrRenew();
  t.same(b.leader(), { identity: 'a', annotations: url });
  clock.step(16_000);
  await b.tryAcquireOrRenew();
  t.ok(b.isLeader(), 'b took the Lease a stopped renewing');
  t.equal(b.leader(), undefined, 'and reads no other leader');
  t.same(api.leases.get('nodesmith/provisioner')?.metadata?.annotations, { 'nodesmith.io/extender-url': 'http://10.0.0.2:8444' }, 'the new holder wrote its own URL over the old');
  await a.tryAcquireOrRenew();
  t.same(a.leader()?.annotations, { 'nodesmith.io/extender-url': 'http://10.0.0.2:8444' });
  b.start();
  await b.stop();
  t.same(api.leases.get('nodesmith/provisioner')?.metadata?.annotations, undefined, 'released: no URL left to send binds to');
  await a.tryAcquireOrRenew();
  t.equal(a.leader(), undefined);
});

void t.test('annotations of others on the Lease are kept', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const a = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'a', annotations: { 'nodesmith.io/extender-url': 'http://a' } });
  await a.tryAcquireOrRenew();
  const lease = api.leases.get('nodesmith/provisioner');
  if (lease?.metadata !== undefined) lease.metadata.annotations = { ...lease.metadata.annotations, 'example.com/note': 'kept' };
  clock.step(2000);
  await a.tryAcquireOrRenew();
  t.same(api.leases.get('nodesmith/provisioner')?.metadata?.annotations, { 'example.com/note': 'kept', 'nodesmith.io/extender-url': 'http://a' });
});

void t.test('a holder with no value for an annotation takes the previous holder\'s off the Lease, so no one is sent to a replica that no longer leads', async (t) => {
  const api = new FakeLeaseApi();
  const clock = new FakeClock(1_000_000);
  const key = 'nodesmith.io/extender-url';
  const a = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'a', annotations: { [key]: 'http://a' } });
  const b = new LeaderElector({ api, clock, namespace: 'nodesmith', name: 'provisioner', identity: 'b', annotations: { [key]: '' } });
  await a.tryAcquireOrRenew();
  await b.tryAcquireOrRenew();
  clock.step(16_000);
  t.ok(await b.tryAcquireOrRenew(), 'b took over');
  t.same(api.leases.get('nodesmith/provisioner')?.metadata?.annotations, undefined, "a's URL is gone, and b wrote none");
  await a.tryAcquireOrRenew();
  t.same(a.leader(), { identity: 'b', annotations: {} });
});
