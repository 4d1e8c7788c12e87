import { productDomain } from '../product-keys.js';
import type { DriverDevices } from './instance-devices.js';
import type { ResourceSlice } from './resource-api.js';

/** On every ResourceSlice nodesmith publishes for a virtual node: that node's name. */
export const virtualSliceNodeLabel = `${productDomain}/virtual-node`;

/** A slice's object name: one per driver and node, as a driver names its own (`<node>-<driver>`), DNS-safe. */
export function sliceName(nodeName: string, driver: string): string {
  return `${nodeName}-${driver.replace(/[^a-z0-9-]/g, '-')}`.slice(0, 253);
}

/**
 * The ResourceSlices of a virtual node: one per driver, node-local (`spec.nodeName`), in a pool named after the node
 * as the drivers name theirs, so kube-scheduler's DRA plugin allocates a claim on the virtual node exactly as it would
 * on the real one. The owner is the virtual Node, so the garbage collector removes them with it.
 */
export function virtualNodeSlices(node: { readonly name: string; readonly uid: string }, drivers: readonly DriverDevices[]): ResourceSlice[] {
  return drivers.map(({ driver, devices }) => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: {
      name: sliceName(node.name, driver),
      labels: { [virtualSliceNodeLabel]: node.name },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: { driver, nodeName: node.name, pool: { name: node.name, generation: 1, resourceSliceCount: 1 }, devices },
  }));
}
