import type { Condition } from '../../domain/api/status-conditions.js';
import type { PodTemplateSpec } from '../../domain/core/pod.js';
import { provisioningRequestApi } from '../../domain/provisioning-requests/provisioning-request.js';
import type { PodTemplateReader } from '../ports/api-reads.js';
import type { ProvisioningRequestStatusWriter } from '../ports/status-writers.js';
import { ignoreNotFound } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

interface PodTemplate { readonly template: PodTemplateSpec }

/**
 * The ProvisioningRequests' PodTemplates and status through the API: one GET of each PodTemplate a request names
 * when it is checked (no list, no cache: a request names a few, and its booking keeps the pods made from them), and
 * a merge patch of the conditions on the status subresource.
 */
export class KubeProvisioningRequests implements PodTemplateReader, ProvisioningRequestStatusWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async podTemplate(namespace: string, name: string): Promise<PodTemplateSpec | undefined> {
    return (await this.#api.find<PodTemplate>({ version: 'v1', plural: 'podtemplates', namespace, name }))?.template;
  }

  async patchConditions(namespace: string, name: string, conditions: readonly Condition[], details?: Readonly<Record<string, string | null>>): Promise<void> {
    const { group, version, plural } = provisioningRequestApi;
    try {
      // A merge patch replaces the list whole (the controller computed it from the request's own conditions) and
      // merges the details map key by key, a null removing one.
      const status = details === undefined ? { conditions } : { conditions, provisioningClassDetails: details };
      await this.#api.mergePatch({ group, version, plural, namespace, name, subresource: 'status' }, { status });
    } catch (e: unknown) {
      // Deleted since the pass read it: a request that is gone has no status to keep.
      ignoreNotFound(e);
    }
  }
}
