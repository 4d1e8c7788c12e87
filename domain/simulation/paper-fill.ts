import type { DemandClass } from './pending-demand.js';

/** Room in one node: CPU (millicores), memory (bytes) and pod slots. Fills use it up as they go. */
export interface Room {
  cpu: number;
  memory: number;
  pods: number;
  /** Groups of pods that repel each other on hostname with a pod in the room already (FillClass.alone). */
  readonly alone: Set<number>;
}

/** A request class as a fill sees it: its requests, and its pods free to expect are count less reserved. */
export type FillClass = Pick<DemandClass, 'cpu' | 'memory' | 'count' | 'reserved' | 'alone'>;

/** The pending pods a fill draws from. */
export interface FillDemand {
  readonly classes: readonly FillClass[];
  /** Indices of the classes that still have unreserved pods, in queue order (largest first). */
  readonly live: Int32Array;
  /** What one pod of each class is worth (class-costs.ts). */
  readonly values: Float64Array;
}

/**
 * How far a balanced fill may overshoot the point where the room's CPU and memory shares cross, as a fraction
 * of the smaller share. Zero would take one pod per step on nodes that alternate between two kinds; a quarter
 * takes them in batches (a handful of steps per node) and still ends with both resources nearly used.
 */
const overshoot = 0.25;

/** Pods of class k still free to expect: unreserved and not already in this fill. */
function free(k: FillClass, already: number): number {
  return k.count - k.reserved - already;
}

/** How many pods of class k fit in the room, up to `limit`. */
function fitting(k: FillClass, room: Room, limit: number): number {
  const byCpu = k.cpu > 0 ? Math.floor(room.cpu / k.cpu) : Infinity;
  const byMemory = k.memory > 0 ? Math.floor(room.memory / k.memory) : Infinity;
  const group = k.alone === undefined ? Infinity : room.alone.has(k.alone) ? 0 : 1;
  return Math.min(limit, room.pods, byCpu, byMemory, group);
}

/** One fill in progress: the pods it draws from, the room it has left and the pods it has planned so far. */
interface Fill {
  readonly demand: FillDemand;
  readonly room: Room;
  readonly expected: Int32Array;
}

/** Plans n more pods of class c; returns their value. */
function take(fill: Fill, c: number, n: number): number {
  const k = fill.demand.classes[c];
  if (k === undefined || n <= 0) return 0;
  fill.expected[c] = (fill.expected[c] ?? 0) + n;
  fill.room.cpu -= n * k.cpu;
  fill.room.memory -= n * k.memory;
  fill.room.pods -= n;
  if (k.alone !== undefined) fill.room.alone.add(k.alone);
  return n * (fill.demand.values[c] ?? 0);
}

/**
 * First fit by class, in queue order: as many pods of each class as still fit. This is how the solver itself
 * fills claims, so the plan it gives is the one most likely to come true; adds the pods to `expected` and
 * returns their value.
 */
export function firstFitByClass(demand: FillDemand, room: Room, expected: Int32Array): number {
  const fill = { demand, room, expected };
  let value = 0;
  for (const c of demand.live) {
    if (room.pods <= 0) break;
    const k = demand.classes[c];
    if (k === undefined || k.cpu > room.cpu || k.memory > room.memory) continue;
    value += take(fill, c, fitting(k, room, free(k, expected[c] ?? 0)));
  }
  return value;
}

/** Shares of the node: CPU and memory as fractions of its allocatable. */
interface Shares {
  readonly cpu: number;
  readonly memory: number;
}

/** The class with free pods that fit whose shares point most along the room's (largest dot product), or -1. */
function mostAlongRoom(fill: Fill, capacity: Shares, room: Shares): number {
  let best = -1;
  let bestDot = -Infinity;
  for (const c of fill.demand.live) {
    const k = fill.demand.classes[c];
    if (k === undefined || fitting(k, fill.room, free(k, fill.expected[c] ?? 0)) <= 0) continue;
    const dot = (k.cpu / capacity.cpu) * room.cpu + (k.memory / capacity.memory) * room.memory;
    if (dot > bestDot) {
      bestDot = dot;
      best = c;
    }
  }
  return best;
}

/** How many pods of class k to take before the room's CPU and memory shares cross (plus `overshoot`). */
function batchSize(k: FillClass, capacity: Shares, room: Shares): number {
  // Each pod of the class moves the gap between the room's CPU and memory shares by `tilt`.
  const tilt = k.cpu / capacity.cpu - k.memory / capacity.memory;
  if (tilt === 0) return Infinity;
  const gap = room.cpu - room.memory;
  const closing = gap * tilt > 0 ? Math.abs(gap) : 0;
  return Math.max(1, Math.floor((closing + overshoot * Math.min(room.cpu, room.memory)) / Math.abs(tilt)));
}

/**
 * A fill that mixes CPU-heavy and memory-heavy pods. First fit by class takes the largest classes first, so a
 * mid-size node can spend all its memory on memory-heavy pods and leave its CPU idle; scored on that fill, it
 * loses to a huge node that holds every kind, even when the huge node ends up with much of one resource unused
 * (generic 500 and 1,000 pods put 40-50 pods on an `hpc7g.16xlarge` at 61% memory). Here each step takes the
 * class that uses most of what the node has most of left (the dot product of the pod's and the room's shares
 * of the node: the DotProduct heuristic of vector bin packing), and keeps taking it until the room's CPU and
 * memory shares cross (plus `overshoot`). Adds the pods to `expected` and returns their value.
 */
export function balancedFill(demand: FillDemand, room: Room, node: { readonly cpu: number; readonly memory: number }, expected: Int32Array): number {
  const fill = { demand, room, expected };
  const capacity = { cpu: node.cpu > 0 ? node.cpu : 1, memory: node.memory > 0 ? node.memory : 1 };
  let value = 0;
  while (room.pods > 0) {
    const shares = { cpu: room.cpu / capacity.cpu, memory: room.memory / capacity.memory };
    const c = mostAlongRoom(fill, capacity, shares);
    const k = demand.classes[c];
    if (k === undefined) break;
    value += take(fill, c, fitting(k, room, Math.min(batchSize(k, capacity, shares), free(k, expected[c] ?? 0))));
  }
  return value;
}
