import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import { CapacityBufferController } from '../provisioner/buffers/buffer-controller.js';
import type { BufferRoom } from '../provisioner/buffers/buffer-room.js';
import { ControllerRunner } from '../provisioner/controller-runner.js';
import { KubeCapacityBuffers } from '../provisioner/kube/capacitybuffer-client.js';
import type { KubeRest } from '../provisioner/kube/kube-rest.js';

/**
 * The CapacityBuffer gate's controller, on a runner of its own (leader only): it resolves each buffer into the room
 * the planner keeps and writes the buffer's status; a buffer applied, changed or deleted wakes it at once.
 */
export function startCapacityBuffers(w: { readonly api: KubeRest; readonly room: BufferRoom | undefined; readonly controllers: boolean; readonly isLeader: () => boolean; readonly log: Logger }): { stop: () => Promise<void> } {
  const room = w.room;
  // `controllers`: this process runs the lifecycle controllers (the provisioner component).
  if (room === undefined || !w.controllers) return { stop: () => Promise.resolve() };
  const kube = new KubeCapacityBuffers(w.api);
  const controller = new CapacityBufferController({ room, reader: kube, writer: kube, clock: systemClock });
  const runner = new ControllerRunner({ clock: systemClock, controllers: [controller], shouldRun: w.isLeader, log: w.log.child({ component: 'provisioner.capacitybuffer' }) });
  const unsubscribe = room.onChange(() => { runner.wake(controller.name); });
  const running = runner.run();
  return {
    stop: async () => {
      unsubscribe();
      runner.stop();
      await running;
    },
  };
}

/** What the planner and disruption take of the buffers: their room, when the gate is on. */
export function bufferDeps(room: BufferRoom | undefined): { buffers?: BufferRoom } {
  return room === undefined ? {} : { buffers: room };
}
