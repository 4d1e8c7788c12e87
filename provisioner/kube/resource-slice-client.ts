import type { Node } from '../../domain/core/node.js';
import { devicesOfNode } from '../../domain/dra/instance-devices.js';
import { virtualNodeSlices } from '../../domain/dra/resource-slices.js';
import { parseResourceList } from '../../domain/resource-list.js';
import type { VirtualNodeSlices } from '../ports/virtual-node-slices.js';
import { statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

const slices = { group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices' } as const;

/** The virtual nodes' ResourceSlices, written straight to the API server. */
export class KubeVirtualNodeSlices implements VirtualNodeSlices {
  readonly #api: KubeRest;

  constructor(api: KubeRest) {
    this.#api = api;
  }

  async publish(node: Node): Promise<void> {
    const name = node.metadata.name ?? '';
    const drivers = devicesOfNode(node.metadata.labels ?? {}, parseResourceList(node.status?.capacity));
    if (drivers.length === 0) return;
    // The owner reference needs the Node's UID, which only the API server knows once the Node exists.
    const created = await this.#api.find<Node>({ version: 'v1', plural: 'nodes', name });
    const uid = created?.metadata.uid;
    if (uid === undefined) return;
    for (const slice of virtualNodeSlices({ name, uid }, drivers)) {
      try {
        await this.#api.create({ ...slices }, slice);
      } catch (error) {
        if (statusCode(error) !== 409) throw error;
      }
    }
  }
}
