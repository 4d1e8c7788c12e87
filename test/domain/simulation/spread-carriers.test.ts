import t from 'tap';
import { domainVerdict } from '../../../domain/simulation/domain-rules.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { KeyConstraints } from '../../../domain/simulation/topology.js';
import { TopologyGroup } from '../../../domain/simulation/topology-group.js';
import { benchNodePool, diverseShapes, karpenterPods } from '../../bench/bench-pods.js';
import { syntheticInstanceTypes } from '../../bench/synthetic-types.js';
import { checkPlan } from '../../support/validate-plan.js';
import { input, pod, pods } from './fixtures.js';

const hostSpread = (value: string): object => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { tier: value } } }] });

void t.test('a pod counted by a placed pod\'s hostname spread does not join its node past the skew', (t) => {
  // The spread pod is largest, so it is placed first; the two small "web" pods it counts come after it and would
  // otherwise share its node, leaving a final skew of 3 on it.
  const spreader = pod('spreader', { cpu: '2', labels: { app: 'spreader' }, spec: hostSpread('web') });
  const planInput = input([spreader, ...pods('web', 2, { cpu: '100m', labels: { tier: 'web' } })]);
  const result = simulate(planInput);
  t.same(checkPlan(planInput, result), [], 'the final placement keeps the skew');
  const home = result.nodeClaims.find((c) => c.pods.some((p) => p.metadata.name === 'spreader'));
  t.ok((home?.pods.filter((p) => p.metadata.labels?.['tier'] === 'web').length ?? 0) <= 1, 'at most one web pod beside it');
  t.end();
});

void t.test('Karpenter\'s diverse pods, whose spread selectors are drawn apart from their labels, get plans that keep every skew', (t) => {
  for (const count of [300, 1500]) {
    const planInput = { nodes: [], daemonSets: [], pendingPods: karpenterPods(count, diverseShapes, count), nodePools: [benchNodePool()], instanceTypes: syntheticInstanceTypes(400) };
    const result = simulate(planInput);
    t.equal(result.unschedulable.length, 0, `${count} pods: all placed`);
    t.same(checkPlan(planInput, result), [], `${count} pods: no violation`);
  }
  t.end();
});

void t.test('pods repelling each other on hostname each get their own node', (t) => {
  const planInput = { nodes: [], daemonSets: [], pendingPods: karpenterPods(400, ['hostnameAntiAffinity']), nodePools: [benchNodePool()], instanceTypes: syntheticInstanceTypes(400) };
  const result = simulate(planInput);
  t.equal(result.nodeClaims.length, 400);
  t.same(checkPlan(planInput, result), []);
  t.end();
});

void t.test('a pod retried without other pods\' zone skews still keeps their hostname skews', (t) => {
  // A node holds a "web" pod and a pod spreading over "web" on hostname; a zone group of "web" pods is skewed.
  const byHost = new TopologyGroup('kubernetes.io/hostname', undefined, { matchLabels: { tier: 'web' } });
  byHost.record('node-1');
  byHost.recordCarrier('node-1', { maxSkew: 1, minDomains: 1 }, []);
  const byZone = new TopologyGroup('topology.kubernetes.io/zone', undefined, { matchLabels: { tier: 'web' } });
  byZone.record('zone-a');
  byZone.recordCarrier('zone-a', { maxSkew: 1, minDomains: 1 }, ['zone-a', 'zone-b']);
  const on = (key: string, group: TopologyGroup): KeyConstraints => ({ key, terms: [], inverse: [], matched: [group] });
  // A pod whose own zone rules leave no zone the carriers allow is retried without them (keepCarriers false)...
  t.equal(domainVerdict(on('topology.kubernetes.io/zone', byZone), 'zone-a', () => [], false), 'allowed');
  // ...but a new node always keeps a hostname skew, so that one is never dropped: the retry must not break it.
  t.equal(domainVerdict(on('kubernetes.io/hostname', byHost), 'node-1', () => [], false), 'permanent');
  t.equal(domainVerdict(on('kubernetes.io/hostname', byHost), 'node-2', () => [], false), 'allowed');
  t.end();
});
