import type { NodePoolStatus } from '../../domain/api/nodepool-schema.js';
import type { NodePoolStatusWriter } from '../ports/status-writers.js';
import { ignoreNotFound } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

export class KubeNodePoolStatusWriter implements NodePoolStatusWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async patchStatus(name: string, status: Partial<NodePoolStatus>): Promise<void> {
    try {
      await this.#api.mergePatch({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name, subresource: 'status' }, { status });
    } catch (e: unknown) {
      // Deleted since the pass read it: a NodePool that is gone has no status to keep.
      ignoreNotFound(e);
    }
  }
}
