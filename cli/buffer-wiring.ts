import { systemClock } from '../domain/clock.js';
import { CapacityBufferController } from '../provisioner/buffers/buffer-controller.js';
import type { BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { KubeCapacityBuffers } from '../provisioner/kube/capacitybuffer-client.js';
import type { KubeRest } from '../provisioner/kube/kube-rest.js';
import type { Watched } from './lifecycle-wiring.js';

/**
 * The CapacityBuffer gate's controller, for the lifecycle runner (leader only), woken when a buffer is applied,
 * changed or deleted: it resolves each buffer into the room the planner keeps and writes the buffer's status.
 */
export function capacityBufferController(api: KubeRest, room: BufferRoom | undefined): Watched | undefined {
  if (room === undefined) return undefined;
  const kube = new KubeCapacityBuffers(api);
  return { store: room, controller: new CapacityBufferController({ room, reader: kube, writer: kube, clock: systemClock }) };
}

/** What the planner and disruption take of the buffers: their room, when the gate is on. */
export function bufferDeps(room: BufferRoom | undefined): { buffers?: BufferRoom } {
  return room === undefined ? {} : { buffers: room };
}
