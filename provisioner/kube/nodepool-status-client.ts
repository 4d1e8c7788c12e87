import * as k8s from '@kubernetes/client-node';
import type { NodePoolStatus } from '../../domain/api/nodepool-schema.js';
import type { NodePoolStatusWriter } from '../provisioning/nodepool-usage.js';

export class KubeNodePoolStatusWriter implements NodePoolStatusWriter {
  readonly #api: k8s.CustomObjectsApi;

  constructor(kc: k8s.KubeConfig) {
    this.#api = kc.makeApiClient(k8s.CustomObjectsApi);
  }

  async patchStatus(name: string, status: Partial<NodePoolStatus>): Promise<void> {
    await this.#api.patchClusterCustomObjectStatus(
      { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name, body: { status } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }
}
