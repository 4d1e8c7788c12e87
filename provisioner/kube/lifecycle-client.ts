import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import type { EvictionOutcome, PodDeletion, VolumeAttachmentApi } from '../ports/cluster-ports.js';
import type { NodeWrites, PodWrites } from '../ports/model-ports.js';
import { evictPod } from './eviction.js';
import { ignoreNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const nodes = { version: 'v1', plural: 'nodes' } as const;

/** What one Node edit changes: spec fields, or metadata (finalizers) under the key `metadata`. */
type NodeEdit = Record<string, unknown> & { readonly metadata?: { readonly finalizers: readonly string[] } };

/** storage.k8s.io/v1 VolumeAttachment (subset). */
interface VolumeAttachment {
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly nodeName?: string; readonly source?: { readonly persistentVolumeName?: string } };
}


/**
 * The Node and Pod writes of the lifecycle and GC controllers, straight against the API server. Their reads come
 * from the cluster model (ports/model-ports.ts), so nothing here lists.
 */
export class KubeLifecycleClient implements NodeWrites, PodWrites, VolumeAttachmentApi {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async labelNode(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    try {
      await this.#api.mergePatch({ ...nodes, name }, { metadata: { labels } });
    } catch (e: unknown) {
      ignoreNotFound(e);
    }
  }

  async cordonAndTaint(name: string, taint: Taint): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      const tainted = taints.some((t) => t.key === taint.key && t.effect === taint.effect);
      if (tainted && node.spec?.unschedulable === true) return undefined;
      return { unschedulable: true, taints: tainted ? [...taints] : [...taints, taint] };
    });
  }

  /** Adds the taint without cordoning, so removing it again leaves the node exactly as it was (disruption rollback). */
  async addTaint(name: string, taint: Taint): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      return taints.some((t) => t.key === taint.key && t.effect === taint.effect) ? undefined : { taints: [...taints, taint] };
    });
  }

  async removeTaint(name: string, key: string): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      if (!taints.some((t) => t.key === key)) return undefined;
      return { taints: taints.filter((t) => t.key !== key) };
    });
  }

  /** Under the Node's resourceVersion (through #editNode), so a finalizer another controller adds meanwhile is kept. */
  async removeNodeFinalizer(name: string, finalizer: string): Promise<void> {
    await this.#editNode(name, (node) => {
      const finalizers = node.metadata.finalizers ?? [];
      return finalizers.includes(finalizer) ? { metadata: { finalizers: finalizers.filter((f) => f !== finalizer) } } : undefined;
    });
  }

  async deleteNode(name: string): Promise<void> {
    try {
      await this.#api.delete({ ...nodes, name });
    } catch (e: unknown) {
      ignoreNotFound(e);
    }
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

  /**
   * Taints are a list, so a merge patch replaces it whole; pinning the resourceVersion makes a
   * concurrent edit (the node lifecycle controller adds not-ready taints) fail with 409 instead of
   * being lost. A conflict re-reads and tries again at once (kubelet and node-controller writes are frequent while
   * many nodes terminate); after three, the caller's next pass retries.
   */
  async #editNode(name: string, edit: (node: Node) => NodeEdit | undefined, attempts = 3): Promise<void> {
    let node: Node & { metadata: { resourceVersion?: string } };
    try {
      node = await this.#api.get<typeof node>({ ...nodes, name });
    } catch (e: unknown) {
      ignoreNotFound(e);
      return;
    }
    const change = edit(node);
    if (change === undefined) return;
    const { metadata, ...spec } = change;
    try {
      await this.#api.mergePatch({ ...nodes, name }, { metadata: { ...metadata, resourceVersion: node.metadata.resourceVersion }, ...(Object.keys(spec).length === 0 ? {} : { spec }) });
    } catch (e: unknown) {
      if (statusCode(e) === 409 && attempts > 1) {
        await this.#editNode(name, edit, attempts - 1);
        return;
      }
      ignoreNotFound(e);
    }
  }
}
