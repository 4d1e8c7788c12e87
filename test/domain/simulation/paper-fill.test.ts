import t from 'tap';
import { balancedFill, firstFitByClass, type FillDemand } from '../../../domain/simulation/paper-fill.js';

const gib = 2 ** 30;
// A node of 4 CPUs, 8 GiB and 10 pod slots; eight memory-heavy pods queued ahead of eight CPU-heavy ones.
const node = { cpu: 4000, memory: 8 * gib };
const demand = (): FillDemand => ({
  classes: [
    { cpu: 250, memory: 2 * gib, count: 8, reserved: 0, alone: undefined },
    { cpu: 1000, memory: 512 * 2 ** 20, count: 8, reserved: 0, alone: undefined },
  ],
  live: Int32Array.from([0, 1]),
  values: Float64Array.from([1, 1]),
});

void t.test('first fit by class fills the node with the first class until its memory runs out', (t) => {
  const expected = new Int32Array(2);
  const value = firstFitByClass(demand(), { ...node, pods: 10, alone: new Set<number>() }, expected);
  // Four memory-heavy pods take all 8 GiB and leave 3 of the 4 CPUs idle.
  t.same([...expected], [4, 0]);
  t.equal(value, 4);
  t.end();
});

void t.test('a balanced fill mixes memory-heavy and CPU-heavy pods until both resources are nearly used', (t) => {
  const expected = new Int32Array(2);
  const room = { ...node, pods: 10, alone: new Set<number>() };
  const value = balancedFill(demand(), room, node, expected);
  // 3 × (250m, 2Gi) + 3 × (1, 512Mi) = 3750m and 7.5 GiB: six pods where first fit holds four.
  t.same([...expected], [3, 3]);
  t.equal(value, 6);
  t.same(room, { cpu: 250, memory: 0.5 * gib, pods: 4, alone: new Set<number>() });
  t.end();
});

void t.test('a balanced fill takes no reserved pods and stops at the pod slots it is given', (t) => {
  const partlyReserved = demand();
  const classes = partlyReserved.classes.map((k, c) => ({ ...k, reserved: c === 0 ? 7 : 0 }));
  const expected = new Int32Array(2);
  balancedFill({ ...partlyReserved, classes }, { ...node, pods: 3, alone: new Set<number>() }, node, expected);
  t.equal(expected[0], 1, 'only one memory-heavy pod is unreserved');
  t.equal((expected[0] ?? 0) + (expected[1] ?? 0), 3);
  t.end();
});

void t.test('a fill plans at most one pod of a group that repels itself on hostname, whatever their requests', (t) => {
  // Two classes of one anti-affinity group (equal labels, different requests): a node holds one pod of the group.
  const classes = [
    { cpu: 250, memory: 256 * 2 ** 20, count: 4, reserved: 0, alone: 0 },
    { cpu: 500, memory: 512 * 2 ** 20, count: 4, reserved: 0, alone: 0 },
  ];
  const expected = new Int32Array(2);
  firstFitByClass({ classes, live: Int32Array.from([0, 1]), values: Float64Array.from([1, 1]) }, { ...node, pods: 10, alone: new Set<number>() }, expected);
  t.same([...expected], [1, 0]);
  const opened = new Int32Array(2);
  firstFitByClass({ classes, live: Int32Array.from([0, 1]), values: Float64Array.from([1, 1]) }, { ...node, pods: 10, alone: new Set([0]) }, opened);
  t.same([...opened], [0, 0], 'none more on a node its first pod of the group opened');
  t.end();
});
