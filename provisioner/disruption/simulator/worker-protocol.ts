import type { NodeSelectorRequirement } from '../../../domain/core/node-selector.js';
import type { Pod } from '../../../domain/core/pod.js';
import type { DaemonSet } from '../../../domain/core/workloads.js';
import { podKeyOf } from '../../../domain/core/object-key.js';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { NodeClassCapacity } from '../../../domain/instance-types/node-class-types.js';
import type { PlannedNodeClaim, SimulationNodePool, SimulationOptions, SimulationResult, SnapshotNode } from '../../../domain/simulation/simulation-input.js';

/**
 * The messages between `WorkerSimulator` and its worker (worker-thread.ts). The worker keeps a copy of the
 * cluster between calls, so a message carries only what changed: the catalog once (in chunks), the nodes whose
 * snapshot changed since the last pass (in chunks), then each question with just its pods and the names left out.
 * Everything is structured-cloned; chunks keep each clone on the main thread short.
 */
export type ToWorker =
  | { readonly kind: 'types'; readonly catalog: number; readonly types: readonly InstanceType[]; readonly first: boolean }
  | { readonly kind: 'nodes'; readonly upserts: readonly SnapshotNode[]; readonly removes: readonly string[] }
  | { readonly kind: 'world'; readonly catalog: number; readonly order: readonly string[]; readonly rest: WorldRest }
  | { readonly kind: 'simulate'; readonly id: number; readonly question: WireQuestion };

/** The small parts of a pass's world, sent whole with every pass. */
export interface WorldRest {
  readonly daemonSets: readonly DaemonSet[];
  readonly nodePools: readonly SimulationNodePool[];
  readonly nodeClasses?: readonly NodeClassCapacity[];
  readonly unavailableOfferings: readonly string[];
  readonly volumeRequirements?: VolumeEntries;
  readonly options?: SimulationOptions;
}

export interface WireQuestion {
  readonly without: readonly string[];
  readonly pods: readonly Pod[];
  readonly volumeRequirements?: VolumeEntries;
}

/** A pod key → volume requirements map as entries (a Map clones too, but entries say what crosses). */
export type VolumeEntries = readonly (readonly [string, readonly NodeSelectorRequirement[]])[];

/** A result with each pod named by its key: the caller maps them back to its own pod objects. */
export interface WireResult {
  readonly existing: readonly { readonly node: string; readonly pods: readonly string[] }[];
  readonly nodeClaims: readonly (Omit<PlannedNodeClaim, 'pods'> & { readonly pods: readonly string[] })[];
  readonly unschedulable: readonly { readonly pod: string; readonly reason: string }[];
}

export type FromWorker =
  | { readonly id: number; readonly result: WireResult }
  | { readonly id: number; readonly error: string };

export function toWire(result: SimulationResult): WireResult {
  const keys = (pods: readonly Pod[]): string[] => pods.map(podKeyOf);
  return {
    existing: result.existing.map((e) => ({ node: e.node, pods: keys(e.pods) })),
    nodeClaims: result.nodeClaims.map((c) => ({ ...c, pods: keys(c.pods) })),
    unschedulable: result.unschedulable.map((u) => ({ pod: podKeyOf(u.pod), reason: u.reason })),
  };
}

/** The result with the caller's own pod objects back in place of the keys (only the question's pods can appear). */
export function fromWire(wire: WireResult, pods: readonly Pod[]): SimulationResult {
  const byKey = new Map(pods.map((p) => [podKeyOf(p), p]));
  const pod = (key: string): Pod => {
    const found = byKey.get(key);
    if (found === undefined) throw new Error(`the simulation worker answered with pod ${key}, which the question did not ask about`);
    return found;
  };
  return {
    existing: wire.existing.map((e) => ({ node: e.node, pods: e.pods.map(pod) })),
    nodeClaims: wire.nodeClaims.map((c) => ({ ...c, pods: c.pods.map(pod) })),
    unschedulable: wire.unschedulable.map((u) => ({ pod: pod(u.pod), reason: u.reason })),
  };
}
