import type { Node } from '../../domain/core/node.js';

/**
 * Publishes a virtual node's ResourceSlices (resource.k8s.io/v1): the devices its instance type would have, as the
 * vendors' DRA drivers publish them. Owned by the Node, so they go when it goes. The Kubernetes adapter is
 * provisioner/kube/resource-slice-client.ts.
 */
export interface VirtualNodeSlices {
  /** Creates the node's slices (none for a type without devices); slices already there are left as they are. */
  publish(node: Node): Promise<void>;
}
