import type { CapacityBuffer, CapacityBufferStatus } from '../../domain/api/capacitybuffer-schema.js';
import { bufferReasons } from '../../domain/buffers/buffer-keys.js';
import type { BufferSource } from '../../domain/buffers/buffer-status.js';
import type { PodTemplateSpec } from '../../domain/core/pod.js';
import type { BufferSourceReader } from '../ports/api-reads.js';
import type { BufferStatusWriter } from '../ports/status-writers.js';
import { ignoreNotFound } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

interface PodTemplate { readonly metadata: { readonly name?: string; readonly generation?: number }; readonly template: PodTemplateSpec }
interface Workload { readonly spec: { readonly replicas?: number; readonly template: PodTemplateSpec } }

const workloadPlurals: Readonly<Record<string, string>> = { Deployment: 'deployments', StatefulSet: 'statefulsets', ReplicaSet: 'replicasets' };

const failed = (reason: string, message: string): BufferSource => ({ found: false, reason, message });

/**
 * The CapacityBuffers' references and status through the API: one GET of the PodTemplate or workload a buffer
 * names, per resolution (no list, no cache: a buffer names one object), and a merge patch of the status.
 */
export class KubeCapacityBuffers implements BufferSourceReader, BufferStatusWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async sourceOf(buffer: CapacityBuffer): Promise<BufferSource> {
    const namespace = buffer.metadata.namespace ?? 'default';
    const { podTemplateRef, scalableRef } = buffer.spec;
    try {
      if (podTemplateRef !== undefined) return await this.#template(namespace, podTemplateRef.name);
      if (scalableRef !== undefined) return await this.#workload(namespace, scalableRef);
    } catch (error: unknown) {
      return failed(bufferReasons.resolutionFailed, error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error));
    }
    return failed(bufferReasons.resolutionFailed, 'Neither podTemplateRef nor scalableRef is set');
  }

  async #template(namespace: string, name: string): Promise<BufferSource> {
    const template = await this.#api.find<PodTemplate>({ version: 'v1', plural: 'podtemplates', namespace, name });
    if (template === undefined) return failed(bufferReasons.podTemplateNotFound, `PodTemplate "${name}" not found in namespace ${namespace}`);
    return { found: true, template: template.template, podTemplate: { name, generation: template.metadata.generation ?? 0 } };
  }

  async #workload(namespace: string, ref: NonNullable<CapacityBuffer['spec']['scalableRef']>): Promise<BufferSource> {
    const plural = workloadPlurals[ref.kind];
    const group = ref.apiGroup ?? '';
    if (plural === undefined || (group !== '' && group !== 'apps')) return failed(bufferReasons.resolutionFailed, `unsupported scalableRef ${group === '' ? 'apps' : group}/${ref.kind}`);
    const workload = await this.#api.find<Workload>({ group: 'apps', version: 'v1', plural, namespace, name: ref.name });
    if (workload === undefined) return failed(bufferReasons.scalableRefNotFound, `${ref.kind} "${ref.name}" not found in namespace ${namespace}`);
    return { found: true, template: workload.spec.template, workloadReplicas: workload.spec.replicas ?? 1 };
  }

  async patchStatus(namespace: string, name: string, status: CapacityBufferStatus): Promise<void> {
    // null removes what a merge patch would otherwise keep: the template fields once the buffer names a workload.
    const body = { status: { podTemplateRef: null, podTemplateGeneration: null, replicas: null, ...status } };
    try {
      await this.#api.mergePatch({ group: 'autoscaling.x-k8s.io', version: 'v1beta1', plural: 'capacitybuffers', namespace, name, subresource: 'status' }, body);
    } catch (e: unknown) {
      // Deleted since the pass read it: a buffer that is gone has no status to keep.
      ignoreNotFound(e);
    }
  }
}
