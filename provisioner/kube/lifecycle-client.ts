import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';
import type { EvictionOutcome, NodeApi, PodApi, PodDeletion } from '../lifecycle/cluster-ports.js';
import { evictPod } from './eviction.js';
import { statusCode } from './api-status.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const fieldManager = 'nodesmith';


function ignore404(e: unknown): void {
  if (statusCode(e) !== 404) throw e;
}

/**
 * client-node models carry Date objects where the wire has RFC 3339 strings; the domain types
 * keep the wire form, so objects pass through JSON once.
 */
function toWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** The Node and Pod operations of the lifecycle and GC controllers, straight against the API server. */
export class KubeLifecycleClient implements NodeApi, PodApi {
  readonly #core: CoreV1Api;

  constructor(core: CoreV1Api) {
    this.#core = core;
  }

  static fromKubeConfig(kc: KubeConfig): KubeLifecycleClient {
    return new KubeLifecycleClient(kc.makeApiClient(CoreV1Api));
  }

  async listNodes(): Promise<readonly Node[]> {
    return toWire((await this.#core.listNode()).items) as Node[];
  }

  async labelNode(name: string, labels: Readonly<Record<string, string>>): Promise<void> {
    try {
      await this.#core.patchNode({ name, body: { metadata: { labels } }, fieldManager }, mergePatch);
    } catch (e: unknown) {
      ignore404(e);
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

  async removeTaint(name: string, key: string): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      if (!taints.some((t) => t.key === key)) return undefined;
      return { taints: taints.filter((t) => t.key !== key) };
    });
  }

  async deleteNode(name: string): Promise<void> {
    try {
      await this.#core.deleteNode({ name });
    } catch (e: unknown) {
      ignore404(e);
    }
  }

  async listPodsOnNode(nodeName: string): Promise<readonly Pod[]> {
    const list = await this.#core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodeName}` });
    return toWire(list.items) as Pod[];
  }

  async listBoundPods(): Promise<readonly Pod[]> {
    const list = await this.#core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName!=' });
    return toWire(list.items) as Pod[];
  }

  evictPod(namespace: string, name: string): Promise<EvictionOutcome> {
    return evictPod(this.#core, namespace, name);
  }

  async deletePod(target: PodDeletion): Promise<void> {
    const { namespace, name, uid, gracePeriodSeconds } = target;
    const body = {
      ...(uid === undefined ? {} : { preconditions: { uid } }),
      ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    };
    try {
      await this.#core.deleteNamespacedPod({ name, namespace, body });
    } catch (e: unknown) {
      // 409: the uid precondition failed, so the pod under this name is a newer one; leave it be.
      if (statusCode(e) === 409) return;
      ignore404(e);
    }
  }

  /**
   * Taints are a list, so a merge patch replaces it whole; pinning the resourceVersion makes a
   * concurrent edit (the node lifecycle controller adds not-ready taints) fail with 409 instead of
   * being lost. The caller's next pass re-reads and retries.
   */
  async #editNode(name: string, edit: (node: Node) => Record<string, unknown> | undefined): Promise<void> {
    let node: Node & { metadata: { resourceVersion?: string } };
    try {
      node = toWire(await this.#core.readNode({ name })) as typeof node;
    } catch (e: unknown) {
      ignore404(e);
      return;
    }
    const spec = edit(node);
    if (spec === undefined) return;
    try {
      await this.#core.patchNode(
        { name, body: { metadata: { resourceVersion: node.metadata.resourceVersion }, spec }, fieldManager },
        mergePatch,
      );
    } catch (e: unknown) {
      ignore404(e);
    }
  }
}
