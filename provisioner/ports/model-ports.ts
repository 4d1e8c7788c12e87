import type { NodeClaim, NodeClaimStatus } from '../../domain/api/nodeclaim-schema.js';
import { isVirtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { NodeClaimStore, PatchStatusOptions } from './nodeclaim-store.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { NodeApi, PodApi } from './cluster-ports.js';

/** The write half of the ports: what only the API server can do. */
export type PodWrites = Omit<PodApi, 'listPodsOnNode' | 'listBoundPods'>;

/**
 * The lifecycle and GC controllers' ports with every read answered from the cluster model and every write sent
 * to the API server: once the informers have synced, a pass of any controller LISTs nothing. A write comes back
 * through the watch; a controller that acts on a read older than its own write is refused by the API server's
 * optimistic concurrency (resourceVersion) and tries again on its next pass.
 */
export function modelNodeApi(state: ClusterState, writes: Omit<NodeApi, 'listNodes'>): NodeApi {
  return {
    listNodes: (): Promise<readonly Node[]> => Promise.resolve([...state.nodes.values()]),
    label: (name, labels) => writes.label(name, labels),
    cordonAndTaint: (name, taint) => writes.cordonAndTaint(name, taint),
    removeTaint: (name, key) => writes.removeTaint(name, key),
    delete: (name) => writes.delete(name),
    removeFinalizer: (name, finalizer) => writes.removeFinalizer(name, finalizer),
  };
}

export function modelPodApi(state: ClusterState, writes: PodWrites): PodApi {
  return {
    listPodsOnNode: (nodeName): Promise<readonly Pod[]> => Promise.resolve(state.podsOn(nodeName)),
    listBoundPods: (): Promise<readonly Pod[]> => Promise.resolve(podsOnVirtualNodes(state)),
    evictPod: (namespace, name) => writes.evictPod(namespace, name),
    deletePod: (target) => writes.deletePod(target),
  };
}

/**
 * Only pods bound to virtual nodes are ever asked for by name of "bound pods" (their GC); the model finds them
 * through its per-node index instead of looking at every pod.
 */
function podsOnVirtualNodes(state: ClusterState): Pod[] {
  const out: Pod[] = [];
  for (const nodeName of state.nodesWithPods()) if (isVirtualNodeName(nodeName)) out.push(...state.podsOn(nodeName));
  return out;
}

/** NodeClaims read from the model, written through `writes` (the API server). */
export class ModelNodeClaimStore implements NodeClaimStore {
  readonly #state: ClusterState;
  readonly #writes: NodeClaimStore;

  constructor(state: ClusterState, writes: NodeClaimStore) {
    this.#state = state;
    this.#writes = writes;
  }

  list(): Promise<NodeClaim[]> {
    return Promise.resolve([...this.#state.nodeClaims.values()]);
  }

  get(name: string): Promise<NodeClaim | undefined> {
    return Promise.resolve(this.#state.nodeClaims.get(name));
  }

  create(claim: NodeClaim): Promise<NodeClaim> {
    return this.#writes.create(claim);
  }

  delete(name: string): Promise<void> {
    return this.#writes.delete(name);
  }

  patchStatus(name: string, status: Partial<NodeClaimStatus>, options?: PatchStatusOptions): Promise<NodeClaim | undefined> {
    return this.#writes.patchStatus(name, status, options);
  }

  addFinalizer(name: string, finalizer: string): Promise<void> {
    return this.#writes.addFinalizer(name, finalizer);
  }

  removeFinalizer(name: string, finalizer: string): Promise<void> {
    return this.#writes.removeFinalizer(name, finalizer);
  }

  addLabels(name: string, labels: Readonly<Record<string, string | null>>): Promise<void> {
    return this.#writes.addLabels(name, labels);
  }

  addAnnotations(name: string, annotations: Readonly<Record<string, string>>): Promise<void> {
    return this.#writes.addAnnotations(name, annotations);
  }
}
