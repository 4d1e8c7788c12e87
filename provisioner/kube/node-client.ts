import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';
import { sameTaint } from '../../domain/taints.js';
import type { NodeWriter } from '../ports/node-writer.js';
import { ignoreNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const nodes = { version: 'v1', plural: 'nodes' } as const;

/** What one Node edit changes: spec fields, or metadata (finalizers) under the key `metadata`. */
type NodeEdit = Record<string, unknown> & { readonly metadata?: { readonly finalizers: readonly string[] } };

/** Every Node write of the provisioner, straight against the API server (reads come from the cluster model). */
export class KubeNodeWriter implements NodeWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async create(node: Node): Promise<void> {
    await this.#api.create({ ...nodes }, node);
  }

  async createIfAbsent(node: Node): Promise<boolean> {
    try {
      await this.create(node);
      return true;
    } catch (error) {
      if (statusCode(error) === 409) return false;
      throw error;
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.#api.delete({ ...nodes, name });
    } catch (error) {
      ignoreNotFound(error);
    }
  }

  async annotate(name: string, key: string, value: string): Promise<void> {
    await this.#mergePatch(name, { metadata: { annotations: { [key]: value } } });
  }

  async label(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    await this.#mergePatch(name, { metadata: { labels } });
  }

  async setConditions(name: string, conditions: readonly object[]): Promise<void> {
    try {
      await this.#api.mergePatch({ ...nodes, name, subresource: 'status' }, { status: { conditions } });
    } catch (error) {
      // A virtual node withdrawn or replaced by its real node since the heartbeat listed it has no status to keep.
      ignoreNotFound(error);
    }
  }

  async cordonAndTaint(name: string, taint: Taint): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      const tainted = taints.some((t) => sameTaint(t, taint));
      if (tainted && node.spec?.unschedulable === true) return undefined;
      return { unschedulable: true, taints: tainted ? [...taints] : [...taints, taint] };
    });
  }

  /** Adds the taint without cordoning, so removing it again leaves the node exactly as it was (disruption rollback). */
  async addTaint(name: string, taint: Taint): Promise<void> {
    await this.#editNode(name, (node) => {
      const taints = node.spec?.taints ?? [];
      return taints.some((t) => sameTaint(t, taint)) ? undefined : { taints: [...taints, taint] };
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
  async removeFinalizer(name: string, finalizer: string): Promise<void> {
    await this.#editNode(name, (node) => {
      const finalizers = node.metadata.finalizers ?? [];
      return finalizers.includes(finalizer) ? { metadata: { finalizers: finalizers.filter((f) => f !== finalizer) } } : undefined;
    });
  }

  /** Labels and annotations are maps, so a merge patch changes only the keys it names: no resourceVersion needed. */
  async #mergePatch(name: string, patch: object): Promise<void> {
    try {
      await this.#api.mergePatch({ ...nodes, name }, patch);
    } catch (error) {
      ignoreNotFound(error);
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
