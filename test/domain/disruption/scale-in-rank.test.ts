import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import { scaleInRank, scaleInRankAnnotations } from '../../../domain/disruption/scale-in-rank.js';
import { evictionCost } from '../../../domain/disruption/eviction-cost.js';
import { podDeletionCostKey } from '../../../domain/karpenter-keys.js';

const pod = (annotations?: Record<string, string>): Pod => ({ metadata: { name: 'web-0', namespace: 'default', ...(annotations === undefined ? {} : { annotations }) }, spec: { containers: [] } });

void t.test("a node's rank depends on its name alone, so every pod on it and every nodesmith replica agree", (t) => {
  t.equal(scaleInRank('ip-10-0-1-17.ec2.internal'), scaleInRank('ip-10-0-1-17.ec2.internal'));
  const ranks = new Set(Array.from({ length: 200 }, (_, i) => scaleInRank(`ip-10-0-${String(i)}-1.ec2.internal`)));
  t.ok(ranks.size >= 195, `200 nodes get ${String(ranks.size)} distinct ranks: few ties for the ReplicaSet to break by crowding`);
  t.end();
});

void t.test('a rank is a whole number from -65,536 to -1: below an unranked pod and a cost set to keep a pod, and it barely moves the eviction cost', (t) => {
  for (const name of ['a', 'node-1', 'ip-192-168-255-255.ec2.internal', 'i-0123456789abcdef0']) {
    const rank = scaleInRank(name);
    t.ok(Number.isInteger(rank) && rank >= -(2 ** 16) && rank <= -1, `${name}: ${String(rank)}`);
    t.ok(Math.abs(evictionCost({ annotations: { [podDeletionCostKey]: String(rank) } }) - evictionCost({})) < 0.0005);
  }
  t.end();
});

void t.test("a bind carries the node's rank as the pod's pod-deletion-cost", (t) => {
  t.same(scaleInRankAnnotations(pod(), 'node-a'), { [podDeletionCostKey]: String(scaleInRank('node-a')) });
  t.same(scaleInRankAnnotations(pod({ team: 'web' }), 'node-a'), { [podDeletionCostKey]: String(scaleInRank('node-a')) }, 'other annotations do not matter');
  t.end();
});

void t.test("a pod with a pod-deletion-cost of its own keeps it, and a pod the model does not know gets none", (t) => {
  t.equal(scaleInRankAnnotations(pod({ [podDeletionCostKey]: '-5' }), 'node-a'), undefined, "the user's order wins");
  t.equal(scaleInRankAnnotations(pod({ [podDeletionCostKey]: '' }), 'node-a'), undefined, 'even an empty one is theirs');
  t.equal(scaleInRankAnnotations(undefined, 'node-a'), undefined, 'its annotations cannot be checked, and the Binding would overwrite them');
  t.end();
});
