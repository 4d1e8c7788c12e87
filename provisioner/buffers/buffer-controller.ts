import type { CapacityBuffer, CapacityBufferStatus } from '../../domain/api/capacitybuffer-schema.js';
import { bufferKey } from '../../domain/buffers/buffer-keys.js';
import { provisioningCondition, resolveBuffer } from '../../domain/buffers/buffer-status.js';
import type { Clock } from '../../domain/clock.js';
import type { Controller, ReconcileResult } from '../runtime/controller-runner.js';
import type { BufferSourceReader } from '../ports/api-reads.js';
import type { BufferStatusWriter } from '../ports/status-writers.js';
import { sameConditions, withCondition, type Condition } from '../../domain/api/status-conditions.js';
import type { BufferRoom } from './buffer-room.js';

/** How often buffers are resolved again: a workload's replicas (a percentage's base) and templates change unwatched. */
export const bufferResyncMs = 10_000;

/** The status a buffer should carry now: the resolution's fields and conditions; times move only on a change. */
export function bufferStatus(buffer: CapacityBuffer, room: BufferRoom, nowMs: number): CapacityBufferStatus | undefined {
  const key = bufferKey(buffer);
  const resolution = room.resolution(key);
  if (resolution === undefined) return undefined;
  let conditions: Condition[] = [...(buffer.status?.conditions ?? [])] as Condition[];
  conditions = withCondition(conditions, resolution.ready, nowMs);
  const provisioning = provisioningCondition(resolution, room.placement(key));
  if (provisioning !== undefined) conditions = withCondition(conditions, provisioning, nowMs);
  const generation = buffer.metadata.generation;
  const stamped = generation === undefined ? conditions : conditions.map((c) => ({ ...c, observedGeneration: generation }));
  return { ...resolution.fields, conditions: stamped };
}

function sameStatus(a: CapacityBufferStatus, b: CapacityBufferStatus | undefined): boolean {
  const { conditions: ca = [], ...fa } = a;
  const { conditions: cb = [], ...fb } = b ?? {};
  return JSON.stringify(Object.entries(fa).sort()) === JSON.stringify(Object.entries(fb).sort()) && sameConditions(ca, cb);
}

/**
 * Resolves each CapacityBuffer into the room it keeps (N virtual pods of its template, in the BufferRoom the planner
 * reads) and writes its status as Karpenter does: ReadyForProvisioning (Resolved, or why the reference failed),
 * replicas, the PodTemplate and its generation, the strategy, and Provisioning from the last planning pass.
 */
export class CapacityBufferController implements Controller {
  readonly name = 'capacitybuffer';
  readonly #deps: { readonly room: BufferRoom; readonly reader: BufferSourceReader; readonly writer: BufferStatusWriter; readonly clock: Clock };

  constructor(deps: { room: BufferRoom; reader: BufferSourceReader; writer: BufferStatusWriter; clock: Clock }) {
    this.#deps = deps;
  }

  async reconcile(): Promise<ReconcileResult> {
    const { room, reader, writer, clock } = this.#deps;
    for (const buffer of room.buffers()) {
      room.resolve(bufferKey(buffer), resolveBuffer(buffer, await reader.sourceOf(buffer)));
      const status = bufferStatus(buffer, room, clock.now());
      if (status === undefined || sameStatus(status, buffer.status)) continue;
      await writer.patchStatus(buffer.metadata.namespace ?? 'default', buffer.metadata.name ?? '', status);
    }
    return { requeueAfterMs: bufferResyncMs };
  }
}
