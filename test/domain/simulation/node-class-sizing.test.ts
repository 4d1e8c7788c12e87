import t from 'tap';
import type { DaemonSet } from '../../../domain/core/workloads.js';
import type { NodeClassCapacity } from '../../../domain/instance-types/node-class-types.js';
import { loadInstanceTypes } from '../../../domain/instance-types/catalog.js';
import { simulate } from '../../../domain/simulation/simulate.js';
import { checkPlan } from '../../support/validate-plan.js';
import { input, nodePool, pod, pods, poolWithClass } from './fixtures.js';

const Gi = 2 ** 30;

const maxPods20: NodeClassCapacity = { name: 'dense', amiFamily: 'AL2023', kubelet: { maxPods: 20 } };

const daemon: DaemonSet = {
  metadata: { name: 'agent', namespace: 'kube-system' },
  spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } } },
};

void t.test('a NodePool whose class sets maxPods 20 never gets more than 20 pods planned on one node, DaemonSet pods included', (t) => {
  const tiny = pods('tiny', 300, { cpu: '10m', memory: '16Mi' });
  const sim = input(tiny, { nodePools: [poolWithClass('default', 'dense')], nodeClasses: [maxPods20], daemonSets: [daemon] });
  const result = simulate(sim);
  t.equal(result.unschedulable.length, 0);
  t.ok(result.nodeClaims.length >= 16, `300 pods at 19 a node need at least 16 nodes (got ${String(result.nodeClaims.length)})`);
  for (const claim of result.nodeClaims) {
    t.ok(claim.pods.length + 1 <= 20, `${claim.name}: ${String(claim.pods.length)} pods + 1 DaemonSet pod`);
    t.equal(claim.allocatable['pods'], 20, 'the plan carries the class\'s pod count');
  }
  t.same(checkPlan(sim, result), []);
  const unclassed = simulate(input(pods('tiny', 300, { cpu: '10m', memory: '16Mi' }), { daemonSets: [daemon] }));
  t.ok(unclassed.nodeClaims.some((c) => c.pods.length > 20), 'without the class, the same pods pack more than 20 to a node');
  t.end();
});

void t.test('reserved resources shrink the room the plan gives a node', (t) => {
  const reserved: NodeClassCapacity = { name: 'reserved', amiFamily: 'AL2023', kubelet: { systemReserved: { cpu: '500m', memory: '1Gi' }, kubeReserved: { cpu: '500m' } } };
  const only = { requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In' as const, values: ['m5.large'] }] };
  const base = nodePool('default', only);
  const pool = { ...base, spec: { ...base.spec, template: { ...base.spec.template, spec: { ...base.spec.template.spec, nodeClassRef: { name: 'reserved' } } } } };
  const plain = simulate(input([pod('one')], { nodePools: [base] })).nodeClaims[0];
  const shrunk = simulate(input([pod('one')], { nodePools: [pool], nodeClasses: [reserved] })).nodeClaims[0];
  t.equal(plain?.allocatable['cpu'], 2000 - 70);
  t.equal(shrunk?.allocatable['cpu'], 2000 - 500 - 500);
  t.equal((plain?.allocatable['memory'] ?? 0) - (shrunk?.allocatable['memory'] ?? 0), Gi);
  t.end();
});

void t.test('a pod asking 50Gi of ephemeral storage fits a class with a 100Gi root volume and nothing on the 20Gi default', (t) => {
  const big = (): ReturnType<typeof pod> => pod('scratch', { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '500m', memory: '512Mi', 'ephemeral-storage': '50Gi' } } }] } });
  const onDefault = simulate(input([big()]));
  t.equal(onDefault.nodeClaims.length, 0);
  t.match(onDefault.unschedulable[0]?.reason ?? '', /ephemeral-storage/);
  const roomy: NodeClassCapacity = { name: 'roomy', amiFamily: 'AL2023', blockDeviceMappings: [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi' } }] };
  const sim = input([big()], { nodePools: [poolWithClass('default', 'roomy')], nodeClasses: [roomy] });
  const result = simulate(sim);
  t.equal(result.unschedulable.length, 0);
  t.equal(result.nodeClaims[0]?.allocatable['ephemeral-storage'], 100 * Gi - Gi - 10 * Gi);
  t.same(checkPlan(sim, result), []);
  t.end();
});

void t.test('each NodePool plans with its own class in one simulation', (t) => {
  const sim = input(pods('web', 60, { cpu: '10m', memory: '16Mi' }), {
    nodePools: [poolWithClass('dense', 'dense', { weight: 10 }), poolWithClass('loose', 'loose')],
    nodeClasses: [maxPods20, { name: 'loose', amiFamily: 'AL2023' }],
  });
  const result = simulate(sim);
  t.ok(result.nodeClaims.length > 0);
  t.ok(result.nodeClaims.every((c) => c.nodePool === 'dense' && c.allocatable['pods'] === 20), 'the heavier pool, sized by its own class');
  const loose = simulate({ ...sim, nodePools: [poolWithClass('loose', 'loose')] });
  t.ok(loose.nodeClaims.some((c) => (c.allocatable['pods'] ?? 0) > 20), 'the other pool keeps the ENI-limited count');
  t.end();
});

void t.test('a pool whose class enables nested virtualization plans only types whose processor offers it', (t) => {
  const instanceTypes = loadInstanceTypes({ only: new Set(['t3.large', 'm5.large', 'm7i.large', 'c7i.large']) });
  const nested: NodeClassCapacity = { name: 'nested', amiFamily: 'AL2023', nestedVirtualization: true };
  const plain = simulate(input([pod('vm')], { instanceTypes })).nodeClaims[0]?.instanceTypes;
  t.equal(plain?.[0], 't3.large', 'without the class, the cheapest type that fits');
  const planned = simulate(input([pod('vm')], { instanceTypes, nodePools: [poolWithClass('default', 'nested')], nodeClasses: [nested] })).nodeClaims[0]?.instanceTypes ?? [];
  t.ok(planned.length > 0, `planned on ${planned.join(', ')}`);
  t.same(planned.filter((name) => name !== 'c7i.large' && name !== 'm7i.large'), [], 'only the 7th-generation Intel types offer it');
  t.end();
});
