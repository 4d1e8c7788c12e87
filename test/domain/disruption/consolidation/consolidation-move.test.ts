import t, { type Test } from 'tap';
import { computeMove, moveContext } from '../../../../domain/disruption/consolidation/consolidation-move.js';
import type { MoveVerdict } from '../../../../domain/disruption/consolidation/consolidation-types.js';
import type { SimulationNodePool } from '../../../../domain/simulation/simulation-input.js';
import { fakeNode, nodePool, onDemandOnly, pod, pods, priceOf, settings, spotOnly, world, type FakeNode } from './fixtures.js';

interface Case {
  readonly name: string;
  readonly nodes: () => FakeNode[];
  /** How many of the first nodes are the candidates. */
  readonly candidates?: number;
  readonly pools?: SimulationNodePool[];
  readonly options?: Parameters<typeof settings>[1];
  readonly expect: (t: Test, verdict: MoveVerdict, nodes: FakeNode[]) => void;
}

/** The move is refused, for the reason given: a string word for word, a RegExp by match. */
function refusedFor(reason: string | RegExp): Case['expect'] {
  return (t, v) => {
    t.notOk(v.ok, 'refused');
    if (v.ok) return;
    if (typeof reason === 'string') t.equal(v.reason, reason);
    else t.match(v.reason, reason);
  };
}

const onlyXlarge = nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge'] }] });
const antiHost = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'solo' } } }] } } };

const cases: Case[] = [
  {
    name: 'a node whose pods fit on another node is deleted, saving its whole price, and each pod says where it goes',
    nodes: () => [fakeNode('a', 'm5.xlarge', pods('web', 2, { cpu: '500m', memory: '1Gi' })), fakeNode('b', 'm5.xlarge', [pod('db', { cpu: '1', memory: '2Gi' })])],
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.decision, 'delete');
      t.equal(v.move.savingsPerHour, priceOf('m5.xlarge'));
      t.same(v.move.moves, [{ pod: 'default/web-0', from: 'a', to: 'b' }, { pod: 'default/web-1', from: 'a', to: 'b' }]);
      t.match(v.move.explanation, /^delete a \(\$0\.1920\/h\): 2 pods fit on other nodes; saves \$0\.1920\/h$/);
    },
  },
  {
    name: 'an on-demand node too big for its pods is replaced with one cheaper node pinned to spot when both are allowed',
    nodes: () => [fakeNode('big', 'm5.4xlarge', [pod('small', { cpu: '500m', memory: '1Gi' })])],
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.decision, 'replace');
      t.equal(v.move.replacement?.capacityType, 'spot');
      t.equal(v.move.replacement?.labels['karpenter.sh/capacity-type'], 'spot');
      t.ok(v.move.guaranteedSavingsPerHour > 0, 'even the dearest option saves money');
      t.ok(v.move.savingsPerHour >= v.move.guaranteedSavingsPerHour);
      t.same(v.move.moves.map((m) => m.to), [v.move.replacement?.name]);
      t.match(v.move.explanation, /^replace big \(\$0\.7680\/h\) with one spot \S+ at \$/);
    },
  },
  {
    name: 'a node already on the cheapest type that holds its pod is not replaced, and the reason names both prices',
    pools: [onDemandOnly],
    nodes: () => [fakeNode('tight', 't3.medium', [pod('busy', { cpu: '800m', memory: '1Gi', spec: { nodeSelector: { 'kubernetes.io/arch': 'amd64' } } })])],
    expect: refusedFor(/^best replacement t3\.medium at \$0\.\d{4}\/h is not cheaper than \$0\.\d{4}\/h$/),
  },
  {
    name: 'a percentage minimum saving blocks a replacement that saves less, with the saving and the minimum in numbers',
    pools: [onDemandOnly],
    options: { minSavings: '60%' },
    nodes: () => [fakeNode('mid', 'm5.large', [pod('p', { cpu: '1500m', memory: '3Gi', spec: { nodeSelector: { 'kubernetes.io/arch': 'amd64' } } })])],
    expect: refusedFor(/^best replacement \S+ at \$0\.\d{4}\/h saves \$0\.0544\/h \(56\.7%\) of \$0\.0960\/h, below the minimum saving 60% \(\$0\.0576\/h\)$/),
  },
  {
    name: 'a price-per-hour minimum saving blocks even a delete that saves less',
    options: { minSavings: '$0.50/h' },
    nodes: () => [fakeNode('a', 'm5.large', [pod('x', { cpu: '100m', memory: '128Mi' })]), fakeNode('b', 'm5.xlarge', [])],
    expect: refusedFor('deleting saves $0.0960/h, below the minimum saving $0.50/h'),
  },
  {
    name: 'a spot node is not replaced with spot while the spot-to-spot gate is off',
    pools: [spotOnly],
    nodes: () => [fakeNode('s', 'm5.4xlarge', [pod('small', { cpu: '500m', memory: '1Gi' })], { capacityType: 'spot' })],
    expect: refusedFor(/SpotToSpotConsolidation feature gate/),
  },
  {
    name: 'with the gate on, a single spot node is replaced by the 15 cheapest of the cheaper spot types',
    pools: [spotOnly],
    options: { spotToSpot: true },
    nodes: () => [fakeNode('s', 'm5.16xlarge', [pod('small', { cpu: '500m', memory: '1Gi' })], { capacityType: 'spot' })],
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.replacement?.instanceTypes.length, 15);
      t.equal(v.move.replacement?.capacityType, 'spot');
    },
  },
  {
    name: 'with the gate on, a spot node with fewer than 15 cheaper spot types stays',
    pools: [spotOnly],
    options: { spotToSpot: true },
    nodes: () => [fakeNode('s', 'm5.large', [pod('small', { cpu: '500m', memory: '1Gi' })], { capacityType: 'spot' })],
    expect: refusedFor(/^spot-to-spot replacement needs at least 15 cheaper spot types, found \d$/),
  },
  {
    name: 'minValues that the cheaper types no longer meet refuses the replacement',
    pools: [nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: 'karpenter.k8s.aws/instance-family', operator: 'Exists', minValues: 6 }] })],
    nodes: () => [fakeNode('m', 'm5.large', [pod('p', { cpu: '500m', memory: '1Gi' })])],
    expect: refusedFor(/^the \d+ replacement types cheaper than \$0\.0960\/h have \d values of karpenter\.k8s\.aws\/instance-family, below its minValues 6$/),
  },
  {
    name: 'three half-empty nodes of the only allowed type are not replaced by a fourth of that type (Karpenter\'s filterOutSameInstanceType)',
    pools: [onlyXlarge],
    candidates: 3,
    nodes: () => ['a', 'b', 'c'].map((n) => fakeNode(n, 'm5.xlarge', [pod(`${n}-pod`, { cpu: '1', memory: '1Gi' })])),
    expect: refusedFor('a multi-node replacement must be cheaper than the batch\'s own m5.xlarge at $0.1920/h: keeping that node and deleting the others moves fewer pods'),
  },
  {
    name: 'two of them are deleted instead: their pods fit on the third',
    pools: [onlyXlarge],
    candidates: 2,
    nodes: () => ['a', 'b', 'c'].map((n) => fakeNode(n, 'm5.xlarge', [pod(`${n}-pod`, { cpu: '1', memory: '1Gi' })])),
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.decision, 'delete');
      t.same(v.move.moves.map((m) => m.to), ['c', 'c']);
    },
  },
  {
    name: 'a multi-node batch is still replaced by a cheaper type than any of its own',
    pools: [onDemandOnly],
    candidates: 2,
    nodes: () => ['a', 'b'].map((n) => fakeNode(n, 'm5.xlarge', [pod(`${n}-pod`, { cpu: '500m', memory: '512Mi' })])),
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.decision, 'replace');
      t.ok((v.move.replacement?.instanceTypes ?? []).every((type) => priceOf(type) < priceOf('m5.xlarge')), 'every option is cheaper than one m5.xlarge');
    },
  },
  {
    name: 'pods that need two new nodes are not consolidated',
    nodes: () => [fakeNode('pair', 'm5.xlarge', pods('solo', 2, { cpu: '500m', memory: '1Gi', spec: antiHost }))],
    expect: refusedFor('its pods need 2 new nodes; consolidation launches at most 1'),
  },
  {
    name: 'a pod that fits nowhere else names itself and the simulation\'s reason',
    nodes: () => [fakeNode('odd', 'm5.xlarge', [pod('s390', { spec: { nodeSelector: { 'kubernetes.io/arch': 's390x' } } })])],
    expect: refusedFor(/^pod default\/s390 would not fit elsewhere: nodepool default: 0\/\d+ instance types/),
  },
  {
    name: 'Balanced refuses a move that saves a small share of the pool for a large share of its disruption',
    pools: [onDemandOnly],
    options: { policy: 'Balanced' },
    nodes: () => [
      fakeNode('busy', 'm5.xlarge', pods('w', 6, { cpu: '500m', memory: '1Gi' })),
      ...Array.from({ length: 4 }, (_, i) => fakeNode(`big-${String(i)}`, 'm5.4xlarge', pods(`full-${String(i)}`, 1, { cpu: '14', memory: '50Gi' }))),
    ],
    expect: refusedFor(/^Balanced: score 0\.\d\d is below 0\.50 \(saves \d+\.\d% of the NodePool's cost for \d+\.\d% of its disruption cost\)$/),
  },
  {
    name: 'Balanced approves a delete that saves as large a share as it disrupts, and records the score',
    options: { policy: 'Balanced' },
    nodes: () => [fakeNode('a', 'm5.xlarge', [pod('x', { cpu: '500m', memory: '1Gi' })]), fakeNode('b', 'm5.xlarge', [pod('y', { cpu: '500m', memory: '1Gi' })])],
    expect: (t, v) => {
      t.ok(v.ok);
      if (!v.ok) return;
      t.equal(v.move.score, 1);
    },
  },
];

for (const c of cases) {
  void t.test(c.name, async (t) => {
    const nodes = c.nodes();
    const ctx = moveContext(world(nodes, c.pools), settings(nodes, c.options));
    const candidates = nodes.slice(0, c.candidates ?? 1).map((n) => n.candidate);
    c.expect(t, await computeMove(ctx, candidates, candidates.length === 1), nodes);
  });
}

void t.test('no candidates is no move', async (t) => {
  const verdict = await computeMove(moveContext(world([]), settings([])), [], true);
  t.same(verdict, { ok: false, reason: 'no candidates' });
});
