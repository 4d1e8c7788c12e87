import { isVirtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { Pod } from '../../domain/core/pod.js';
import type { ControllerLogger, ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder, PodApi } from '../ports/cluster-ports.js';
import type { LifecycleMetrics } from '../metrics.js';
import { OptionsController } from '../runtime/options-controller.js';

export interface VirtualNodePodGcOptions {
  readonly pods: Pick<PodApi, 'listBoundPods' | 'deletePod'>;
  readonly recorder: EventRecorder;
  readonly metrics?: LifecycleMetrics;
  readonly log?: ControllerLogger;
  readonly intervalMs?: number;
}

export const deletedFromVirtualNodeReason = 'DeletedFromVirtualNode';

/** How often pods bound to a virtual node are looked for. */
export const virtualNodePodGcPeriodMs = 5000;

/**
 * A pod bound to a virtual node will never run: no kubelet serves that name, and a binding cannot
 * be moved. It gets there only when kube-scheduler's default binder ran instead of ours (an
 * ignorable extender that failed) and the binding guard was bypassed. Deleting it lets its owner
 * create a replacement that schedules normally; the Event tells the user why it vanished.
 */
export class VirtualNodePodGc extends OptionsController<VirtualNodePodGcOptions> {
  readonly name = 'gc.virtual_node_pods';

  async reconcile(): Promise<ReconcileResult> {
    const stranded = (await this.options.pods.listBoundPods()).filter(
      (p) => isVirtualNodeName(p.spec.nodeName ?? '') && p.metadata.deletionTimestamp === undefined,
    );
    for (const pod of stranded) await this.#delete(pod);
    return { requeueAfterMs: this.options.intervalMs ?? virtualNodePodGcPeriodMs };
  }

  async #delete(pod: Pod): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const nodeName = pod.spec.nodeName ?? '';
    this.options.recorder.record(
      { apiVersion: 'v1', kind: 'Pod', name, namespace, ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }) },
      'Warning',
      deletedFromVirtualNodeReason,
      `deleting pod bound to virtual node ${nodeName}, which will never run it; its owner recreates it`,
    );
    // No kubelet serves a virtual node, so nothing would ever finish a graceful deletion.
    await this.options.pods.deletePod({
      namespace,
      name,
      gracePeriodSeconds: 0,
      ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }),
    });
    this.options.metrics?.garbageCollected.inc({ kind: 'pod' });
    this.log.info({ component: this.name, pod: `${namespace}/${name}`, node: nodeName }, 'deleted pod bound to virtual node');
  }
}
