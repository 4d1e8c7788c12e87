import type { CapacityBuffer } from '../../domain/api/capacitybuffer-schema.js';
import { bufferKey } from '../../domain/buffers/buffer-keys.js';
import { bufferOfPod } from '../../domain/buffers/buffer-pods.js';
import type { BufferPlacement, BufferResolution } from '../../domain/buffers/buffer-status.js';
import { compareStrings } from '../../domain/compare.js';
import type { Pod } from '../../domain/core/pod.js';
import { podKeyOf } from '../../domain/core/object-key.js';
import type { SimulationResult } from '../../domain/simulation/simulation-input.js';
import type { ClusterState } from '../state/cluster-state.js';

/**
 * The one place the CapacityBuffers' room is known (gate CapacityBuffer): the buffers as their informer delivers
 * them, the virtual pods each resolved to (the controller's work), and where the last planning pass put those pods.
 * The planner adds the pods to every pass; disruption asks which nodes hold room (so emptiness keeps them) and
 * which pods a consolidation must find room for. Nothing here reaches the API server as a Pod.
 */
export class BufferRoom {
  readonly #buffers = new Map<string, CapacityBuffer>();
  readonly #resolved = new Map<string, BufferResolution>();
  #placements = new Map<string, BufferPlacement>();
  #nodes = new Map<string, number>();
  /** The room's pod keys, rebuilt when a resolution changes the room. */
  #keys: ReadonlySet<string> | undefined;
  readonly #listeners = new Set<() => void>();

  readonly handlers = {
    upsert: (buffer: CapacityBuffer): void => { this.#buffers.set(bufferKey(buffer), buffer); this.#changed(); },
    remove: (ref: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): void => {
      const key = bufferKey(ref);
      this.#buffers.delete(key);
      this.#keys = undefined;
      if (this.#resolved.delete(key)) this.#changed();
    },
  };

  /** Every buffer, by namespace and name. */
  buffers(): CapacityBuffer[] {
    return [...this.#buffers.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, buffer]) => buffer);
  }

  /** The controller's resolution of a buffer; a change of its room wakes the planner. */
  resolve(key: string, resolution: BufferResolution): void {
    if (!this.#buffers.has(key)) return;
    const before = this.#resolved.get(key);
    this.#resolved.set(key, resolution);
    this.#keys = undefined;
    if (before === undefined || roomOf(before) !== roomOf(resolution)) this.#changed();
  }

  resolution(key: string): BufferResolution | undefined {
    return this.#resolved.get(key);
  }

  /** Every buffer's room as virtual pods, for a planning pass or a consolidation's simulation. */
  pods(): Pod[] {
    return [...this.#resolved.values()].flatMap((r) => r.pods);
  }

  /** Whether this pod key ("namespace/name") is one of the room's virtual pods now. */
  isRoomPod(key: string): boolean {
    this.#keys ??= new Set(this.pods().map(podKeyOf));
    return this.#keys.has(key);
  }

  get isEmpty(): boolean {
    return [...this.#resolved.values()].every((r) => r.pods.length === 0);
  }

  /** After a planning pass: where each buffer's pods went, and which nodes hold room now. */
  recordPass(result: SimulationResult): void {
    const placements = new Map<string, { existing: number; newNodeClaims: number; failed: number }>();
    const at = (pod: Pod): { existing: number; newNodeClaims: number; failed: number } | undefined => {
      const key = bufferOfPod(pod);
      if (key === undefined) return undefined;
      let entry = placements.get(key);
      if (entry === undefined) placements.set(key, (entry = { existing: 0, newNodeClaims: 0, failed: 0 }));
      return entry;
    };
    const nodes = new Map<string, number>();
    for (const { node, pods } of result.existing) {
      for (const pod of pods) {
        const entry = at(pod);
        if (entry === undefined) continue;
        entry.existing++;
        nodes.set(node, (nodes.get(node) ?? 0) + 1);
      }
    }
    for (const claim of result.nodeClaims) for (const pod of claim.pods) { const entry = at(pod); if (entry !== undefined) entry.newNodeClaims++; }
    for (const { pod } of result.unschedulable) { const entry = at(pod); if (entry !== undefined) entry.failed++; }
    this.#placements = placements;
    this.#nodes = nodes;
  }

  placement(key: string): BufferPlacement | undefined {
    return this.#placements.get(key);
  }

  /** How many buffer pods the last pass kept room for on this node (real, or a plan still in flight). */
  roomOn(node: string): number {
    return this.#nodes.get(node) ?? 0;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** What a resolution asks the planner for: how many pods, of which shape. */
function roomOf(resolution: BufferResolution): string {
  const first = resolution.pods[0];
  return JSON.stringify([resolution.pods.length, first?.spec, first?.metadata.labels]);
}

/**
 * The room as the simulation should place it in this cluster: tolerating the NodePools' startup taints too, which
 * a node launched for it carries until its daemons remove them (Karpenter ignores them on a node not initialized);
 * otherwise each pass would see that node full and launch the room again.
 */
export function roomPodsIn(state: ClusterState, room: BufferRoom): Pod[] {
  const keys = new Set<string>();
  for (const pool of state.nodePools.values()) for (const taint of pool.spec.template.spec.startupTaints ?? []) keys.add(taint.key);
  const pods = room.pods();
  if (keys.size === 0) return pods;
  const tolerations = [...keys].map((key) => ({ key, operator: 'Exists' as const }));
  return pods.map((pod) => ({ ...pod, spec: { ...pod.spec, tolerations: [...(pod.spec.tolerations ?? []), ...tolerations] } }));
}
