import type { Condition } from '../../domain/api/status-conditions.js';
import type { NodeOverlayStatusWriter } from '../ports/status-writers.js';
import { ignoreNotFound } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

export class KubeNodeOverlayStatusWriter implements NodeOverlayStatusWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async patchConditions(name: string, conditions: readonly Condition[]): Promise<void> {
    try {
      // The controller owns every condition of a NodeOverlay, so replacing the list (a merge patch does) loses nothing.
      await this.#api.mergePatch({ group: 'karpenter.sh', version: 'v1alpha1', plural: 'nodeoverlays', name, subresource: 'status' }, { status: { conditions } });
    } catch (e: unknown) {
      // Deleted since the pass read it: an overlay that is gone has no status to keep.
      ignoreNotFound(e);
    }
  }
}
