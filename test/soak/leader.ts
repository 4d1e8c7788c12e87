import * as k8s from '@kubernetes/client-node';
import type { ProductStack } from '../e2e/product-stack.js';
import { holds, type Replica } from '../e2e/replica-set.js';

/** The Lease the replicas of nodesmith elect their leader with (cli/app.ts). */
const lease = { name: 'nodesmith-provisioner', namespace: 'nodesmith' };

/** The replica holding the Lease now, or undefined (no replicas, no holder yet, the API server unreachable). */
export async function leaderReplica(product: ProductStack): Promise<Replica | undefined> {
  if (product.replicas.length === 0) return undefined;
  try {
    const holder = (await product.kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease(lease)).spec?.holderIdentity;
    return product.replicas.find((r) => holds(r, holder));
  } catch {
    return undefined;
  }
}
