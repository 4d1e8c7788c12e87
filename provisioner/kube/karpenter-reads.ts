import type { Lease } from '../../domain/core/lease.js';
import type { KubeRest } from './kube-rest.js';
import type { DeploymentStatusView, KarpenterReads, ObjectKey } from '../ports/api-reads.js';

/** The Karpenter guard's reads over the API server: one GET per object, 404 answering undefined. */
export function kubeKarpenterReads(api: KubeRest): KarpenterReads {
  return {
    lease: ({ namespace, name }: ObjectKey) => api.find<Lease>({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespace, name }),
    deployment: ({ namespace, name }: ObjectKey) => api.find<DeploymentStatusView>({ group: 'apps', version: 'v1', plural: 'deployments', namespace, name }),
  };
}
