import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { EC2NodeClassStatus } from '../../domain/api/ec2nodeclass-status-schema.js';
import type { NodeClassWriter } from '../ports/nodeclass-writer.js';
import { isNotFound } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const resource = { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' } as const;

/**
 * EC2NodeClass writes over the API server. Finalizer edits are JSON patches whose `test` op pins
 * what they were computed from (the resourceVersion, or the entry being removed), so a concurrent
 * edit makes the patch fail (422) instead of overwriting another controller's finalizer; the
 * caller retries on its next pass.
 */
export class KubeNodeClassClient implements NodeClassWriter {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async patchStatus(name: string, status: Partial<EC2NodeClassStatus>): Promise<void> {
    await this.#ignoreGone(`patching status of ec2nodeclass ${name}`, () =>
      this.#api.mergePatch({ ...resource, name, subresource: 'status' }, { status }));
  }

  async addFinalizer(name: string, finalizer: string): Promise<void> {
    const current = await this.#read(name);
    const list = current?.metadata.finalizers;
    if (current === undefined || list?.includes(finalizer) === true) return;
    const body = [
      { op: 'test', path: '/metadata/resourceVersion', value: current.metadata.resourceVersion },
      { op: 'add', path: '/metadata/finalizers', value: [...(list ?? []), finalizer] },
    ];
    await this.#ignoreGone(`adding finalizer to ec2nodeclass ${name}`, () => this.#api.jsonPatch({ ...resource, name }, body));
  }

  async removeFinalizer(name: string, finalizer: string): Promise<void> {
    const index = (await this.#read(name))?.metadata.finalizers?.indexOf(finalizer) ?? -1;
    if (index < 0) return;
    const path = `/metadata/finalizers/${String(index)}`;
    const body = [{ op: 'test', path, value: finalizer }, { op: 'remove', path }];
    await this.#ignoreGone(`removing finalizer from ec2nodeclass ${name}`, () => this.#api.jsonPatch({ ...resource, name }, body));
  }

  async #read(name: string): Promise<EC2NodeClass | undefined> {
    try {
      return await this.#api.get<EC2NodeClass>({ ...resource, name });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw new Error(`reading ec2nodeclass ${name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }

  async #ignoreGone(action: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw new Error(`${action}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
}
