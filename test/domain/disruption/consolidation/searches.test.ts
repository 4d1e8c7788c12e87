import t from 'tap';
import { inConsolidationOrder, withinBudgets, consolidationBlock } from '../../../../domain/disruption/consolidation/consolidation-candidates.js';
import { moveContext } from '../../../../domain/disruption/consolidation/consolidation-move.js';
import { unpaced, type Pacer } from '../../../../domain/disruption/consolidation/consolidation-types.js';
import { multiNodeConsolidation } from '../../../../domain/disruption/consolidation/multi-node.js';
import { singleNodeConsolidation } from '../../../../domain/disruption/consolidation/single-node.js';
import { fakeNode, onDemandOnly, pod, pods, priceOf, settings, world } from './fixtures.js';

const halfEmpty = (name: string): ReturnType<typeof fakeNode> => fakeNode(name, 'm5.xlarge', pods(name, 3, { cpu: '500m', memory: '2Gi' }));

/** A pacer that allows `simulations` simulations and counts the pauses. */
function countingPacer(simulations: number): Pacer & { pauses: number } {
  const pacer = { pauses: 0, expired: () => pacer.pauses >= simulations, pause: () => { pacer.pauses++; return Promise.resolve(); } };
  return pacer;
}

void t.test('three half-empty nodes become one cheaper node through the largest batch', async (t) => {
  const nodes = ['a', 'b', 'c'].map(halfEmpty);
  const ctx = moveContext(world(nodes, [onDemandOnly]), settings(nodes));
  const outcome = await multiNodeConsolidation(ctx, inConsolidationOrder(nodes.map((n) => n.candidate)), unpaced);
  t.equal(outcome.move?.candidates.length, 3, 'all three in one move');
  t.equal(outcome.move?.decision, 'replace');
  t.ok((outcome.move?.replacement?.pricePerHour ?? Infinity) < 3 * priceOf('m5.xlarge'), 'the one node is cheaper than the three');
  t.equal(outcome.move?.moves.length, 9, 'every pod moves to the new node');
  t.equal(outcome.simulations, 2, 'binary search over batch sizes 2..3');
  t.notOk(outcome.timedOut);
});

void t.test('the multi-node search stops at its deadline with the best batch so far', async (t) => {
  const nodes = ['a', 'b', 'c', 'd', 'e', 'f'].map(halfEmpty);
  const ctx = moveContext(world(nodes, [onDemandOnly]), settings(nodes));
  const pacer = countingPacer(1);
  const outcome = await multiNodeConsolidation(ctx, inConsolidationOrder(nodes.map((n) => n.candidate)), pacer);
  t.ok(outcome.timedOut);
  t.equal(outcome.simulations, 1);
  t.equal(pacer.pauses, 1, 'it yielded after the simulation');
  t.equal(outcome.move?.candidates.length, 4, 'the first batch tried (size 4 of 2..6) worked and is kept');
});

void t.test('multi-node needs at least two candidates and reports each refused batch', async (t) => {
  const solo = [fakeNode('odd', 'm5.xlarge', [pod('s390', { spec: { nodeSelector: { 'kubernetes.io/arch': 's390x' } } })])];
  const one = await multiNodeConsolidation(moveContext(world(solo), settings(solo)), solo.map((n) => n.candidate), unpaced);
  t.same(one, { refused: [], simulations: 0, timedOut: false });
  const two = [...solo, fakeNode('odd2', 'm5.xlarge', [pod('s390b', { spec: { nodeSelector: { 'kubernetes.io/arch': 's390x' } } })])];
  const outcome = await multiNodeConsolidation(moveContext(world(two), settings(two)), two.map((n) => n.candidate), unpaced);
  t.equal(outcome.move, undefined);
  t.match(outcome.refused, [{ size: 2, reason: /^pod default\/s390b? would not fit elsewhere/ }]);
});

void t.test('single-node takes the first candidate in order with a move; explainAll gives every other its reason', async (t) => {
  const nodes = [
    fakeNode('odd', 'm5.2xlarge', [pod('s390', { spec: { nodeSelector: { 'kubernetes.io/arch': 's390x' } } })]),
    fakeNode('spare', 'm5.xlarge', [pod('tiny', { cpu: '100m', memory: '128Mi' })]),
    fakeNode('host', 'm5.xlarge', [pod('big-0', { cpu: '1500m', memory: '4Gi' }), pod('big-1', { cpu: '1500m', memory: '4Gi' })]),
  ];
  const ctx = moveContext(world(nodes, [onDemandOnly]), settings(nodes));
  const ordered = inConsolidationOrder(nodes.map((n) => n.candidate));
  t.same(ordered.map((c) => c.nodeName), ['odd', 'spare', 'host'], 'dearest per unit of disruption first');
  const first = await singleNodeConsolidation(ctx, ordered, unpaced);
  t.equal(first.move?.candidates[0]?.nodeName, 'spare');
  t.equal(first.move?.decision, 'delete');
  t.same(first.refused.map((r) => r.nodeName), ['odd'], 'without explainAll it stops at the move');
  const all = await singleNodeConsolidation(ctx, ordered, unpaced, { explainAll: true });
  t.equal(all.move?.candidates[0]?.nodeName, 'spare');
  t.match(all.refused, [{ nodeName: 'odd', reason: /would not fit elsewhere/ }, { nodeName: 'host', reason: /^would delete host \(\$0\.1920\/h\): 2 pods fit on other nodes; saves \$0\.1920\/h, after the move chosen first$/ }]);
  t.equal(all.simulations, 3);
});

void t.test('single-node reports the candidates its time budget did not reach', async (t) => {
  const nodes = ['a', 'b', 'c'].map(halfEmpty);
  const ctx = moveContext(world(nodes, [onDemandOnly]), settings(nodes, { minSavings: '$9/h' }));
  const outcome = await singleNodeConsolidation(ctx, nodes.map((n) => n.candidate), countingPacer(1));
  t.ok(outcome.timedOut);
  t.match(outcome.refused, [{ nodeName: 'a', reason: /below the minimum saving \$9\/h/ }, { nodeName: 'b', reason: /ran out of time/ }, { nodeName: 'c', reason: /ran out of time/ }]);
});

void t.test('budgets: a multi-node batch uses one disruption per node; single-node only skips pools at 0', (t) => {
  const nodes = ['a', 'b', 'c'].map(halfEmpty);
  const candidates = nodes.map((n) => n.candidate);
  const budgets = new Map([['default', { allowed: 2, explanation: 'budget 10% of 20 nodes allows 2: 2 left' }]]);
  const multi = withinBudgets(candidates, budgets, true);
  t.same(multi.kept.map((c) => c.nodeName), ['a', 'b']);
  t.same(multi.blocked, [{ nodeName: 'c', reason: 'budget 10% of 20 nodes allows 2: 2 left; taken by nodes ahead of it' }]);
  t.equal(withinBudgets(candidates, budgets, false).kept.length, 3);
  const closed = withinBudgets(candidates, new Map([['default', { allowed: 0, explanation: 'budget 0 of 3 nodes allows 0: 0 left' }]]), false);
  t.same(closed.blocked.map((b) => b.reason), Array(3).fill('budget 0 of 3 nodes allows 0: 0 left'));
  t.same(withinBudgets(candidates, new Map(), false).blocked[0], { nodeName: 'a', reason: 'NodePool default has no budget' });
  t.end();
});

void t.test('eligibility: each reason a candidate is left out of consolidation, with numbers', (t) => {
  const busy = halfEmpty('busy').candidate;
  const pool = settings([halfEmpty('busy')]).pools.get('default');
  const yes = { consolidatable: { consolidatable: true, sinceMs: 0 } as const, pool };
  const cases: [string, Parameters<typeof consolidationBlock>[0], Parameters<typeof consolidationBlock>[1], string | undefined][] = [
    ['eligible', busy, yes, undefined],
    ['waiting', busy, { pool, consolidatable: { consolidatable: false, reason: 'consolidateAfter 5m has not passed since the last pod event', recheckAtMs: 130_000 } }, 'consolidateAfter 5m has not passed since the last pod event (2m10s left)'],
    ['seconds', busy, { pool, consolidatable: { consolidatable: false, reason: 'consolidateAfter 30s has not passed since initialization', recheckAtMs: 12_400 } }, 'consolidateAfter 30s has not passed since initialization (13s left)'],
    ['never', busy, { pool, consolidatable: { consolidatable: false, reason: 'consolidateAfter is Never' } }, 'consolidateAfter is Never'],
    ['WhenEmpty', busy, { ...yes, pool: pool === undefined ? undefined : { ...pool, policy: 'WhenEmpty' } }, 'NodePool default has consolidationPolicy WhenEmpty and the node has 3 pods to move'],
    ['no type', { ...busy, instanceType: undefined }, yes, 'node has no node.kubernetes.io/instance-type label'],
    ['no capacity type', { ...busy, capacityType: undefined }, yes, 'node has no karpenter.sh/capacity-type label'],
    ['no zone', { ...busy, zone: undefined }, yes, 'node has no topology.kubernetes.io/zone label'],
    ['no price', { ...busy, pricePerHour: 0 }, yes, 'no price is known for m5.xlarge on-demand in us-east-1a'],
  ];
  for (const [name, candidate, facts, expected] of cases) t.equal(consolidationBlock(candidate, facts, 0), expected, name);
  t.end();
});
