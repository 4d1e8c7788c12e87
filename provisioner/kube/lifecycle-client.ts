import type { EvictionOutcome, PodDeletion, VolumeAttachmentApi } from '../ports/cluster-ports.js';
import type { PodWrites } from '../ports/model-ports.js';
import { evictPod } from './eviction.js';
import { ignoreNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

/** storage.k8s.io/v1 VolumeAttachment (subset). */
interface VolumeAttachment {
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly nodeName?: string; readonly source?: { readonly persistentVolumeName?: string } };
}


/**
 * The Pod writes of the lifecycle and GC controllers, and the VolumeAttachments termination waits for, straight
 * against the API server. Their pod reads come from the cluster model (ports/model-ports.ts); their Node writes
 * go through the one NodeWriter (node-client.ts).
 */
export class KubeLifecycleClient implements PodWrites, VolumeAttachmentApi {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  /**
   * The node's VolumeAttachments of persistent volumes (Karpenter skips attachments without a persistentVolumeName).
   * storage.k8s.io offers no field selector on spec.nodeName, so this lists them all: once per termination pass of a
   * drained node, and clusters keep one attachment per mounted volume.
   */
  async attachmentsOf(nodeName: string): Promise<readonly string[]> {
    const list = await this.#api.get<{ items?: VolumeAttachment[] }>({ group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments' });
    return (list.items ?? [])
      .filter((a) => a.spec?.nodeName === nodeName && (a.spec.source?.persistentVolumeName ?? '') !== '')
      .map((a) => a.metadata?.name ?? '');
  }

  evictPod(namespace: string, name: string): Promise<EvictionOutcome> {
    return evictPod(this.#api, namespace, name);
  }

  async deletePod(target: PodDeletion): Promise<void> {
    const { namespace, name, uid, gracePeriodSeconds } = target;
    const body = {
      ...(uid === undefined ? {} : { preconditions: { uid } }),
      ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    };
    try {
      await this.#api.delete({ version: 'v1', plural: 'pods', namespace, name }, body);
    } catch (e: unknown) {
      // 409: the uid precondition failed, so the pod under this name is a newer one; leave it be.
      if (statusCode(e) === 409) return;
      ignoreNotFound(e);
    }
  }
}
