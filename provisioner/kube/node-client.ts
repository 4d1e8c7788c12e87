import type { Node } from '../../domain/core/node.js';
import { ignoreNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const nodes = { version: 'v1', plural: 'nodes' } as const;

/** The Node writes the provisioner makes: virtual nodes, their heartbeats, and the real node of a launch. */
export interface NodeWriter {
  create(node: Node): Promise<void>;
  /** Creates the node unless one of that name exists; resolves false when it already did. */
  createIfAbsent(node: Node): Promise<boolean>;
  /** Idempotent: a node that is already gone counts as deleted. */
  delete(name: string): Promise<void>;
  /** Replaces status.conditions (virtual nodes have exactly one, Ready); a node that is gone is not an error. */
  setConditions(name: string, conditions: readonly object[]): Promise<void>;
  /** Sets one annotation; a node that is gone is not an error. */
  annotate(name: string, key: string, value: string): Promise<void>;
}


export class KubeNodeWriter implements NodeWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async create(node: Node): Promise<void> {
    // Node status is kept on create (the kubelet registers that way), so capacity and the Ready condition
    // are in place the moment kube-scheduler sees the node.
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
    try {
      await this.#api.mergePatch({ ...nodes, name }, { metadata: { annotations: { [key]: value } } });
    } catch (error) {
      ignoreNotFound(error);
    }
  }

  async setConditions(name: string, conditions: readonly object[]): Promise<void> {
    try {
      await this.#api.mergePatch({ ...nodes, name, subresource: 'status' }, { status: { conditions } });
    } catch (error) {
      // A virtual node withdrawn or replaced by its real node since the heartbeat listed it has no status to keep.
      ignoreNotFound(error);
    }
  }
}
