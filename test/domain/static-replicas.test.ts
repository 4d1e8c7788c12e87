import t from 'tap';
import { countPhases, nodesLeftUnderLimit, scaleDownOrder, staticReplicaDecision, type StaticClaimFacts, type StaticPodFacts } from '../../domain/static-replicas.js';

const now = 1_700_000_000_000;
const hour = 3_600_000;
const app: StaticPodFacts = { daemon: false, doNotDisrupt: false };
const daemon: StaticPodFacts = { daemon: true, doNotDisrupt: false };
const guarded: StaticPodFacts = { daemon: false, doNotDisrupt: true };

function claim(name: string, extra: Partial<StaticClaimFacts> = {}): StaticClaimFacts {
  return { name, phase: 'active', launched: true, createdMs: now - hour, pods: [app], ...extra };
}

const ready = { ready: true };

void t.test('a static pool with fewer active NodeClaims than replicas launches the difference, whatever the pods', (t) => {
  t.same(staticReplicaDecision({ replicas: 3, ...ready }, [], now), { active: 0, launch: 3, remove: [] });
  t.same(staticReplicaDecision({ replicas: 3, ...ready }, [claim('a', { pods: [] })], now), { active: 1, launch: 2, remove: [] });
  t.end();
});

void t.test('exactly replicas active NodeClaims: nothing to do', (t) => {
  t.same(staticReplicaDecision({ replicas: 2, ...ready }, [claim('a'), claim('b')], now), { active: 2, launch: 0, remove: [] });
  t.end();
});

void t.test('a node being replaced by a disruption command still counts, so nothing more is launched meanwhile', (t) => {
  const claims = [claim('a'), claim('old', { phase: 'disrupting' }), claim('replacement', { launched: false, launching: true, pods: [] })];
  t.same(staticReplicaDecision({ replicas: 2, ...ready }, claims, now), { active: 2, launch: 0, remove: [] }, 'the replacement in flight is no surplus either');
  t.same(staticReplicaDecision({ replicas: 2, ...ready }, [claim('a'), claim('old', { phase: 'disrupting' })], now), { active: 1, launch: 0, remove: [] });
  t.end();
});

void t.test('a deleting NodeClaim (expiry, interruption, a user) is replaced', (t) => {
  t.same(staticReplicaDecision({ replicas: 2, ...ready }, [claim('a'), claim('gone', { phase: 'deleting' })], now), { active: 1, launch: 1, remove: [] });
  t.end();
});

void t.test('limits.nodes caps what is launched; every NodeClaim, deleting ones too, counts against it', (t) => {
  const decision = staticReplicaDecision({ replicas: 5, nodeLimit: 4, ...ready }, [claim('a'), claim('gone', { phase: 'deleting' })], now);
  t.same(decision, { active: 1, launch: 2, remove: [], heldBack: 'limits.nodes 4 reached (2 NodeClaims, 4 more wanted)' });
  t.equal(nodesLeftUnderLimit({ nodeLimit: 1 }, [claim('a'), claim('b')]), 0, 'never negative');
  t.equal(nodesLeftUnderLimit({}, [claim('a')]), Number.POSITIVE_INFINITY, 'no limit');
  t.end();
});

void t.test('a NodePool that is not Ready launches nothing and says why', (t) => {
  t.same(staticReplicaDecision({ replicas: 1, ready: false }, [], now), { active: 0, launch: 0, remove: [], heldBack: 'the NodePool is not Ready' });
  t.end();
});

void t.test('a scale-down removes only active NodeClaims, unlaunched first, then empty, then the cheapest to disrupt, do-not-disrupt last', (t) => {
  const claims = [
    claim('busy', { pods: [app, app, app] }),
    claim('guarded', { pods: [guarded] }),
    claim('quiet', { pods: [app] }),
    claim('daemons-only', { pods: [daemon] }),
    claim('launching', { launched: false, launching: true, pods: [] }),
    claim('never-launched', { launched: false, pods: [] }),
    claim('leaving', { phase: 'deleting' }),
  ];
  const decision = staticReplicaDecision({ replicas: 0, ...ready }, claims, now);
  t.same(decision.remove, ['never-launched', 'launching', 'daemons-only', 'quiet', 'busy', 'guarded']);
  t.same(staticReplicaDecision({ replicas: 4, ...ready }, claims, now).remove, ['never-launched', 'launching']);
  t.end();
});

void t.test('a node close to its expiry costs less to disrupt: it goes before an equal node with its life ahead', (t) => {
  const young = claim('young', { createdMs: now - hour });
  const old = claim('old', { createdMs: now - 9 * hour });
  t.same(scaleDownOrder([young, old], { expireAfter: '10h' }, now).map((c) => c.name), ['old', 'young']);
  t.same(scaleDownOrder([young, old], {}, now).map((c) => c.name), ['old', 'young'], 'without expiry, equal costs go by name');
  t.end();
});

void t.test('a do-not-disrupt DaemonSet pod keeps a node from counting as empty', (t) => {
  const order = scaleDownOrder([claim('protected', { pods: [{ daemon: true, doNotDisrupt: true }] }), claim('empty', { pods: [daemon] })], {}, now);
  t.same(order.map((c) => c.name), ['empty', 'protected']);
  t.end();
});

void t.test('phases are counted', (t) => {
  t.same(countPhases([claim('a'), claim('b', { phase: 'deleting' }), claim('c', { phase: 'disrupting' })]), { active: 1, deleting: 1, disrupting: 1 });
  t.end();
});
