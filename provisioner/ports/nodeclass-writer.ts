import type { EC2NodeClassStatus } from '../../domain/api/ec2nodeclass-status-schema.js';

/**
 * The EC2NodeClass writes the NodeClass controllers make; reads come from the cluster state. The
 * Kubernetes adapter is provisioner/kube/ec2nodeclass-client.ts.
 */
export interface NodeClassWriter {
  /** Merge-patches the status subresource (conditions are replaced whole). */
  patchStatus(name: string, status: Partial<EC2NodeClassStatus>): Promise<void>;
  /** Adds the finalizer unless present; a NodeClass that is gone is not an error. */
  addFinalizer(name: string, finalizer: string): Promise<void>;
  /** Removes the finalizer if present; a NodeClass that is gone is not an error. */
  removeFinalizer(name: string, finalizer: string): Promise<void>;
}
