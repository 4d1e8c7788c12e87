import type { Node, NodeCondition } from '../../domain/core/node.js';
import type { NodeWriter } from '../../provisioner/ports/node-writer.js';
import type { ClusterState } from '../../provisioner/state/cluster-state.js';
import { feedBack } from './cluster-state.js';

/** The writes of virtual nodes and launches; the lifecycle controllers' Node writes are FakeCluster's. */
type PlanNodeWrites = Pick<NodeWriter, 'create' | 'createIfAbsent' | 'delete' | 'setConditions' | 'annotate'>;

/**
 * Node writes kept in memory. With a state, each write comes back into it at once, as the node informer
 * would deliver it, so a test sees what the next pass of a loop would see.
 */
export class FakeNodeWriter implements PlanNodeWrites {
  private readonly state?: ClusterState | undefined;
  readonly nodes = new Map<string, Node>();
  readonly created: string[] = [];
  readonly deleted: string[] = [];
  readonly annotations: { name: string; key: string; value: string }[] = [];

  constructor(state?: ClusterState) {
    this.state = state;
  }

  create(node: Node): Promise<void> {
    const name = node.metadata.name ?? '';
    if (this.nodes.has(name)) return Promise.reject(new Error(`nodes "${name}" already exists`));
    this.nodes.set(name, structuredClone(node));
    this.created.push(name);
    if (this.state !== undefined) feedBack(this.state, { node });
    return Promise.resolve();
  }

  async createIfAbsent(node: Node): Promise<boolean> {
    if (this.nodes.has(node.metadata.name ?? '')) return false;
    await this.create(node);
    return true;
  }

  delete(name: string): Promise<void> {
    if (this.nodes.delete(name)) this.deleted.push(name);
    if (this.state !== undefined) feedBack(this.state, { deletedNode: name });
    return Promise.resolve();
  }

  setConditions(name: string, conditions: readonly object[]): Promise<void> {
    const node = this.nodes.get(name);
    if (node !== undefined) this.nodes.set(name, { ...node, status: { ...node.status, conditions: conditions as readonly NodeCondition[] } });
    return Promise.resolve();
  }

  annotate(name: string, key: string, value: string): Promise<void> {
    this.annotations.push({ name, key, value });
    const node = this.nodes.get(name);
    if (node === undefined) return Promise.resolve();
    const annotated = { ...node, metadata: { ...node.metadata, annotations: { ...node.metadata.annotations, [key]: value } } };
    this.nodes.set(name, annotated);
    if (this.state !== undefined) feedBack(this.state, { node: annotated });
    return Promise.resolve();
  }
}
