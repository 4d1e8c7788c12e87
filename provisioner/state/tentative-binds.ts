import { addInto, isEmpty, sumsFor, type ResourceSums } from '../../domain/resource-sums.js';
import type { ResourceList } from '../../domain/resource-list.js';

interface Tentative {
  readonly nodes: readonly string[];
  readonly requests: ResourceList;
  readonly atMs: number;
}

/**
 * The real nodes kube-scheduler may be placing a pod on right now: those the extender's filter let it choose
 * from, until its bind arrives. kube-scheduler binds asynchronously: it has counted the pod on its chosen node in
 * its own cache and goes on to the next pod, whose filter call may come before the first pod's bind. kube-scheduler's
 * cache does not know the pods the extender binds there through a virtual node, and the model did not know the first
 * pod: each check alone passed, and together they overcommitted the node. Held on every node the filter passed
 * (which one kube-scheduler picks is not said) for a few seconds at most; cleared when the bind arrives.
 */
export class TentativeBinds {
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #byPod = new Map<string, Tentative>();
  readonly #onNode = new Map<string, ResourceSums>();

  constructor(now: () => number = Date.now, ttlMs = 5_000) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  /** kube-scheduler may put the pod on any of these nodes; replaces what was noted for it before. */
  note(key: string, nodes: readonly string[], requests: ResourceList): void {
    this.clear(key);
    this.#sweep();
    if (nodes.length === 0) return;
    this.#byPod.set(key, { nodes, requests, atMs: this.#now() });
    for (const node of nodes) addInto(sumsFor(this.#onNode, node), requests, 1);
  }

  /** The pod's bind arrived, or it was bound or deleted: its choice is made. */
  clear(key: string): void {
    const entry = this.#byPod.get(key);
    if (entry === undefined) return;
    this.#byPod.delete(key);
    for (const node of entry.nodes) {
      const sums = this.#onNode.get(node);
      if (sums === undefined) continue;
      addInto(sums, entry.requests, -1);
      if (isEmpty(sums)) this.#onNode.delete(node);
    }
  }

  /** The requests of the pods that may be on their way to this node, not yet bound or binding; undefined when none. */
  on(node: string): ResourceList | undefined {
    return this.#onNode.get(node);
  }

  get size(): number {
    return this.#byPod.size;
  }

  /** Entries are kept in the order they were noted: the oldest go first, once past the time a bind takes. */
  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#byPod) {
      if (now - entry.atMs < this.#ttlMs) return;
      this.clear(key);
    }
  }
}
