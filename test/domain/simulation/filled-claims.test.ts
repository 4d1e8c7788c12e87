import t from 'tap';
import { filledClaims } from '../../../domain/simulation/filled-claims.js';
import type { PlannedNodeClaim } from '../../../domain/simulation/simulation-input.js';
import { pod } from './fixtures.js';

function claim(name: string, used: { cpu: number; memory: number; pods?: number }, podCount = 1): PlannedNodeClaim {
  return {
    name, nodePool: 'default', instanceTypes: ['c6g.xlarge'], pods: Array.from({ length: podCount }, (_, i) => pod(`${name}-${String(i)}`)), pricePerHour: 0.136,
    requests: { cpu: used.cpu, memory: used.memory, ...(used.pods === undefined ? {} : { pods: used.pods }) }, allocatable: { cpu: 3_920, memory: 6_000_000_000, pods: 58 }, labels: {},
  };
}

const gi = 1024 ** 3;

void t.test('a node is filled when no pending pod fits in the CPU, memory or pod slots it has left', (t) => {
  const pending = [pod('small', { cpu: '500m', memory: '512Mi' }), pod('big', { cpu: '2', memory: '4Gi' })];
  const claims = [
    claim('cpu-full', { cpu: 3_600, memory: 1 * gi }),
    claim('memory-full', { cpu: 1_000, memory: 6_000_000_000 - 256 * 1024 ** 2 }),
    claim('slots-full', { cpu: 100, memory: 1 * gi, pods: 58 }),
    claim('room-for-small', { cpu: 3_400, memory: 5 * gi }),
    claim('empty', { cpu: 0, memory: 0 }),
  ];
  t.same(filledClaims(claims, pending).map((c) => c.name), ['cpu-full', 'memory-full', 'slots-full']);
  t.end();
});

void t.test('the smallest pending pod decides: one that needs little CPU but much memory is not hidden by one that needs the reverse', (t) => {
  const pending = [pod('cpu-heavy', { cpu: '3', memory: '128Mi' }), pod('memory-heavy', { cpu: '100m', memory: '4Gi' })];
  const lowOnCpu = claim('low-on-cpu', { cpu: 3_500, memory: 512 * 1024 ** 2 });
  t.same(filledClaims([lowOnCpu], pending), [], 'the memory-heavy pod still fits its 420m and 5 GiB left');
  t.same(filledClaims([lowOnCpu], [pending[0]].filter((p) => p !== undefined)).map((c) => c.name), ['low-on-cpu'], 'the CPU-heavy pod alone does not');
  t.end();
});

void t.test("a full node smaller than the pass's largest holds its leftovers, and waits for the batch's last pass", (t) => {
  const pending = [pod('web', { cpu: '500m', memory: '512Mi' })];
  const big = { ...claim('big', { cpu: 47_600, memory: 90 * gi }), allocatable: { cpu: 47_810, memory: 92 * gi, pods: 234 } };
  const leftovers = claim('leftovers', { cpu: 3_600, memory: 1 * gi });
  t.same(filledClaims([big, leftovers], pending).map((c) => c.name), ['big']);
  t.end();
});

void t.test('a full node holding a pod placed by other pods (spread, affinity, anti-affinity) waits for the batch', (t) => {
  const pending = [pod('web', { cpu: '500m', memory: '512Mi' })];
  const spread = pod('spread', { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }] } });
  const apart = pod('apart', { spec: { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'apart' } } } }] } } } });
  const full = (name: string, p: typeof spread): ReturnType<typeof claim> => ({ ...claim(name, { cpu: 3_600, memory: 1 * gi }), pods: [p] });
  t.same(filledClaims([full('spread', spread), full('apart', apart), full('plain', pod('plain'))], pending).map((c) => c.name), ['plain']);
  t.end();
});
