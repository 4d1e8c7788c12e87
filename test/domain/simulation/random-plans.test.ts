import t from 'tap';
import type { Pod } from '../../../domain/core/pod.js';
import type { DaemonSet } from '../../../domain/core/workloads.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import type { SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import { seededRandom } from '../../bench/bench-pods.js';
import { input, nodePool, pod, pods, smallCatalog } from './fixtures.js';
import { checkPlan } from '../../support/validate-plan.js';

type Random = () => number;
const pick = <T>(r: Random, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;

function randomPod(r: Random, i: number): Pod {
  // Pods of one app share their constraints, as the replicas of a Deployment do (a spread or affinity over
  // pods that do not all carry it is enforced only when the constrained ones are placed).
  const appIndex = Math.floor(r() * 9);
  const app = `app-${appIndex}`;
  const cpu = pick(r, ['100m', '250m', '500m', '1', '2', '3']);
  const memory = pick(r, ['64Mi', '256Mi', '1Gi', '3Gi', '8Gi']);
  const selector = { matchLabels: { app } };
  const spec = ([
    {},
    { nodeSelector: { 'kubernetes.io/arch': pick(r, ['arm64', 'amd64']) } },
    { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [pick(r, ['us-east-1a', 'us-east-1b'])] }] }] } } } },
    { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] },
    { topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] },
    { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: selector }] } } },
    { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: selector }] } } },
    { tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
    { containers: [{ name: 'app', ports: [{ containerPort: 80, hostPort: 8080 }], resources: { requests: { cpu, memory } } }] },
  ] as const)[appIndex] ?? {};
  return pod(`p-${i}`, { cpu, memory, labels: { app }, spec });
}

function existingNode(r: Random, i: number): SnapshotNode {
  const zone = pick(r, ['us-east-1a', 'us-east-1b', 'us-east-1c']);
  const running = pod(`running-${i}`, { cpu: '500m', labels: { app: `running-${i}` }, spec: r() < 0.5 ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'app-0' } } }] } } } : {} });
  return {
    name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': zone, 'kubernetes.io/arch': 'amd64', 'karpenter.sh/nodepool': 'default' },
    taints: [], allocatable: { cpu: 3920, memory: 14 * 2 ** 30, pods: 58 }, pods: [running],
  };
}

const daemonSet: DaemonSet = { metadata: { name: 'agent' }, spec: { template: { spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '100Mi' } } }] } } } };

void t.test('random plans pass the independent checker', (t) => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = seededRandom(seed);
    const count = 5 + Math.floor(r() * 60);
    const pending = Array.from({ length: count }, (_, i) => randomPod(r, i));
    const pools = [nodePool('default'), nodePool('dedicated', { taints: [{ key: 'dedicated', value: 'true', effect: 'NoSchedule' }], weight: 10, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] })];
    const nodes = Array.from({ length: Math.floor(r() * 3) }, (_, i) => existingNode(r, i));
    const planInput = input(pending, { nodePools: pools, nodes, daemonSets: r() < 0.5 ? [daemonSet] : [] });
    const result = simulate(planInput);
    t.same(checkPlan(planInput, result), [], `seed ${seed}: ${count} pods, ${result.nodeClaims.length} claims, ${result.unschedulable.length} unschedulable`);
  }
  t.end();
});

void t.test('the same input always gives the same plan', (t) => {
  const r = seededRandom(7);
  const pending = Array.from({ length: 40 }, (_, i) => randomPod(r, i));
  const a = simulate(input(pending));
  const b = simulate(input(pending));
  t.same(a.nodeClaims.map((c) => [c.name, c.instanceTypes[0], c.pods.length]), b.nodeClaims.map((c) => [c.name, c.instanceTypes[0], c.pods.length]));
  t.ok(smallCatalog.length > 20, 'the test catalog has enough types');
  t.end();
});

void t.test('the checker catches an overfull node and a broken anti-affinity', (t) => {
  const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'solo' } } }] } } };
  const pending = [pod('solo-0', { labels: { app: 'solo' }, spec: anti }), pod('solo-1', { labels: { app: 'solo' }, spec: anti })];
  const planInput = input(pending);
  const result = simulate(planInput);
  t.equal(result.nodeClaims.length, 2, 'anti-affinity gives two claims');
  const [first, second] = result.nodeClaims;
  if (first === undefined || second === undefined) {
    t.end();
    return;
  }
  const merged = { ...result, nodeClaims: [{ ...first, pods: [...first.pods, ...second.pods], instanceTypes: ['t3.medium'] }] };
  const errors = checkPlan(planInput, merged);
  t.ok(errors.some((e) => e.includes('anti-affinity broken')), 'anti-affinity violation found');
  const tiny = { ...result, nodeClaims: [{ ...first, pods: pods('big', 1, { cpu: '64' }).concat(first.pods), instanceTypes: ['t3.medium'] }, second] };
  t.ok(checkPlan(planInput, tiny).some((e) => e.includes('too little cpu') || e.includes('over allocatable')), 'overfull node found');
  t.end();
});
