import t from 'tap';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { assignmentBound, nodeOffers, podClasses, usefulOffers, type NodeOffer } from './assignment-bound.js';
import { handMachine } from '../support/hand-machine.js';
import { costLowerBound } from './cost-bound.js';
import { loadLpSolver } from './lp-solver.js';
import { pods } from '../domain/simulation/fixtures.js';

const gib = 2 ** 30;

function instanceType(name: string, size: { cpu: number; memoryGiB: number; pods: number }, price: number): InstanceType {
  const allocatable = { cpu: size.cpu, memory: size.memoryGiB * gib, pods: size.pods };
  return {
    name, labels: {}, capacity: allocatable, allocatable, overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    kubelet: { maxPods: size.pods }, offerings: [{ zone: 'z', capacityType: 'spot', price, available: true }], machine: handMachine(size.cpu, size.memoryGiB * gib),
  };
}

// A nano type with cheap CPU but too little memory for any pod, a memory type with dear CPU, and a standard one.
const catalog = [
  instanceType('nano', { cpu: 2000, memoryGiB: 0.25, pods: 4 }, 1),
  instanceType('mem', { cpu: 1000, memoryGiB: 8, pods: 10 }, 2),
  instanceType('std', { cpu: 2000, memoryGiB: 4, pods: 10 }, 2),
];
const fourPods = pods('web', 4, { cpu: '1', memory: '1Gi' });

void t.test('the literal bound covers CPU with the nano type that cannot hold a pod', (t) => {
  // 16/9 nano nodes give the CPU and 4/9 mem nodes the memory: 16/9 × $1 + 4/9 × $2 = $8/3.
  t.ok(Math.abs(costLowerBound(catalog, 4000, 4 * gib) - 8 / 3) < 1e-9);
  t.end();
});

void t.test('the assignment bound puts pods only where one fits, so it prices two standard nodes', async (t) => {
  const highs = await loadLpSolver();
  const bound = assignmentBound(highs, nodeOffers(catalog), podClasses(fourPods));
  t.ok(Math.abs(bound.cost - 4) < 1e-6, `cost ${String(bound.cost)}`);
  t.same(bound.fleet.map((f) => f.name), ['std']);
  t.ok(Math.abs((bound.fleet[0]?.nodes ?? 0) - 2) < 1e-6);
});

void t.test('pod slots bound the assignment too', async (t) => {
  const highs = await loadLpSolver();
  const tiny = pods('tiny', 20, { cpu: '10m', memory: '16Mi' });
  // By CPU and memory alone 1.25 nano nodes would do ($1.25); with four slots per nano node ($5 for twenty pods)
  // and ten on the others, two std or mem nodes ($4) are cheapest.
  const bound = assignmentBound(highs, nodeOffers(catalog), podClasses(tiny));
  t.ok(Math.abs(bound.cost - 4) < 1e-6, `cost ${String(bound.cost)}`);
});

void t.test('pods with equal requests form one class', (t) => {
  t.same(podClasses([...fourPods, ...pods('db', 2, { cpu: '1', memory: '2Gi' })]).map((c) => c.count), [4, 2]);
  t.end();
});

void t.test('a type no better per dollar in any resource and fitting no more classes is left out', (t) => {
  const offers: NodeOffer[] = [...nodeOffers(catalog), { name: 'std-dear', cpu: 2000, memory: 4 * gib, pods: 10, price: 3 }, { name: 'std-double', cpu: 4000, memory: 8 * gib, pods: 20, price: 4 }];
  // std-double matches std per dollar and fits every class std fits, so only one of the two is kept.
  t.same(usefulOffers(offers, podClasses(fourPods)).map((o) => o.name), ['mem', 'std']);
  t.end();
});

void t.test('a pod no type can hold makes the bound refuse rather than ignore it', async (t) => {
  const highs = await loadLpSolver();
  t.throws(() => assignmentBound(highs, nodeOffers(catalog), podClasses(pods('huge', 1, { cpu: '8' }))), /no instance type holds/);
});
