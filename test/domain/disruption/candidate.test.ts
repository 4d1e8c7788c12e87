import t from 'tap';
import { candidacy, type CandidateContext, type CandidateNodeFacts, type CandidatePodFacts } from '../../../domain/disruption/candidate.js';
import { podDoNotDisrupt } from '../../../domain/disruption/do-not-disrupt.js';

const now = Date.UTC(2026, 10, 23, 12, 0, 0);
const minute = 60_000;
const graceful: CandidateContext = { disruptionClass: 'graceful', nowMs: now, nodePools: new Set(['default']) };
const eventual: CandidateContext = { ...graceful, disruptionClass: 'eventual' };

function pod(over: Partial<CandidatePodFacts> = {}): CandidatePodFacts {
  return { key: 'shop/cart-0', leaving: false, evictable: true, startTimeMs: now - 10 * minute, ...over };
}

function node(over: Partial<CandidateNodeFacts> = {}): CandidateNodeFacts {
  return {
    name: 'ip-10-0-0-1', managed: true, hasNode: true, initialized: true, deleting: false, inCommand: false, nominated: false,
    labels: { 'karpenter.sh/nodepool': 'default' }, annotations: {}, pods: [], ...over,
  };
}

void t.test('an initialized managed node with movable pods is a candidate of its NodePool', (t) => {
  t.same(candidacy(node({ pods: [pod()] }), graceful), { candidate: true, nodePool: 'default', ignored: [] });
  t.end();
});

void t.test('node-level rules refuse a candidate with the exact reason, in Karpenter order', (t) => {
  const cases: [Partial<CandidateNodeFacts>, string][] = [
    [{ inCommand: true, deleting: true }, 'node is already being disrupted'],
    [{ managed: false }, 'node is not managed by a NodeClaim'],
    [{ hasNode: false, initialized: false }, 'nodeclaim has no node yet'],
    [{ initialized: false }, 'node is not initialized'],
    [{ deleting: true, nominated: true }, 'node is deleting or marked for deletion'],
    [{ nominated: true }, 'node is nominated for pending pods'],
    [{ bookedFor: ['batch/train', 'batch/eval'], annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, 'node holds capacity booked for ProvisioningRequest batch/train, batch/eval'],
    [{ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, 'node has karpenter.sh/do-not-disrupt'],
    [{ labels: {} }, 'node has no karpenter.sh/nodepool label'],
    [{ labels: { 'karpenter.sh/nodepool': 'gone' } }, 'NodePool gone not found'],
  ];
  for (const [over, reason] of cases) t.same(candidacy(node(over), graceful), { candidate: false, reason, ignored: [] }, reason);
  t.end();
});

void t.test('node-level blocks hold for eventual disruption too', (t) => {
  const result = candidacy(node({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, terminationGracePeriod: '1h' }), eventual);
  t.equal(result.candidate, false);
  t.end();
});

void t.test('a do-not-disrupt pod holds its node for graceful disruption', (t) => {
  const blocked = node({ pods: [pod({ key: 'shop/web-1' }), pod({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })] });
  t.same(candidacy(blocked, graceful), { candidate: false, reason: 'pod shop/cart-0 has karpenter.sh/do-not-disrupt', ignored: [] });
  t.end();
});

void t.test('a do-not-disrupt duration holds the node until the pod has run that long', (t) => {
  const withDuration = (startTimeMs: number): CandidateNodeFacts => node({ pods: [pod({ annotations: { 'karpenter.sh/do-not-disrupt': '30m' }, startTimeMs })] });
  t.same(candidacy(withDuration(now - 10 * minute), graceful), {
    candidate: false, reason: 'pod shop/cart-0 has karpenter.sh/do-not-disrupt until 2026-11-23T12:20:00.000Z', ignored: [],
  });
  t.equal(candidacy(withDuration(now - 30 * minute), graceful).candidate, true, 'at exactly 30m the protection has ended');
  t.end();
});

void t.test('a PDB that allows no eviction holds the node, unless the pod is leaving or would not be evicted', (t) => {
  const evictionBlock = 'PDB shop/cart allows 0 evictions';
  t.same(candidacy(node({ pods: [pod({ evictionBlock })] }), graceful), { candidate: false, reason: evictionBlock, ignored: [] });
  t.equal(candidacy(node({ pods: [pod({ evictionBlock, leaving: true })] }), graceful).candidate, true);
  t.equal(candidacy(node({ pods: [pod({ evictionBlock, evictable: false })] }), graceful).candidate, true);
  t.end();
});

void t.test('do-not-disrupt is checked before PDBs, and a leaving pod blocks nothing', (t) => {
  const pods = [
    pod({ key: 'shop/a', evictionBlock: 'PDB shop/a allows 0 evictions' }),
    pod({ key: 'shop/b', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
    pod({ key: 'shop/c', annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, leaving: true }),
  ];
  t.match(candidacy(node({ pods }), graceful), { reason: 'pod shop/b has karpenter.sh/do-not-disrupt' });
  t.end();
});

void t.test('eventual disruption of a NodeClaim with a terminationGracePeriod goes ahead over pod-level blocks', (t) => {
  const blocked = node({ terminationGracePeriod: '1h', pods: [pod({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })] });
  t.same(candidacy(blocked, eventual), {
    candidate: true, nodePool: 'default', overriddenBlock: 'pod shop/cart-0 has karpenter.sh/do-not-disrupt', ignored: [],
  });
  t.equal(candidacy(blocked, graceful).candidate, false, 'graceful disruption still respects them');
  const noGracePeriod = node({ pods: [pod({ evictionBlock: 'PDB shop/cart allows 0 evictions' })] });
  t.equal(candidacy(noGracePeriod, eventual).candidate, false, 'without a grace period nothing bounds the drain');
  t.end();
});

void t.test('invalid do-not-disrupt values are ignored and reported so an Event can say so', (t) => {
  const result = candidacy(node({
    annotations: { 'karpenter.sh/do-not-disrupt': '5m' },
    pods: [pod({ annotations: { 'karpenter.sh/do-not-disrupt': 'yes' } }), pod({ key: 'shop/b', annotations: { 'karpenter.sh/do-not-disrupt': '0s' } })],
  }), graceful);
  t.same(result, {
    candidate: true, nodePool: 'default', ignored: [
      { object: 'node ip-10-0-0-1', problem: 'karpenter.sh/do-not-disrupt="5m" on a node means nothing; only "true" blocks' },
      { object: 'pod shop/cart-0', problem: 'karpenter.sh/do-not-disrupt="yes" is neither "true" nor a duration' },
      { object: 'pod shop/b', problem: 'karpenter.sh/do-not-disrupt="0s" must be a positive duration' },
    ],
  });
  t.end();
});

void t.test('a pod whose start time is unknown stays protected by a duration (fail safe)', (t) => {
  t.same(podDoNotDisrupt({ 'karpenter.sh/do-not-disrupt': '5m' }, undefined, now), { kind: 'blocks' });
  t.same(podDoNotDisrupt({ 'karpenter.sh/do-not-disrupt': '5m' }, now - 5 * minute, now), { kind: 'expired' });
  t.same(podDoNotDisrupt({}, now, now), { kind: 'none' });
  t.end();
});
