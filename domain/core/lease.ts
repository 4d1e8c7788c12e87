/**
 * A coordination.k8s.io/v1 Lease as the elector reads and writes it (times are MicroTime strings). It lives with
 * the other core kinds because two rooms read it: our own leader election and the guard that watches Karpenter's.
 */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}
