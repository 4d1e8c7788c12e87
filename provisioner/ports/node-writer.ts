import type { Node } from '../../domain/core/node.js';
import type { Taint } from '../../domain/core/taint.js';

/**
 * Every write the provisioner makes to a Node, in one port so a Node has one writer whoever writes it: the
 * planner (virtual nodes and their heartbeats), the materializer (the real node of a launch), the lifecycle and
 * GC controllers, disruption and interruption. Each caller takes the `Pick` it needs. Reads come from the cluster
 * model, never from here. Every write but `create` treats a Node that is gone as done, since a controller acting on
 * a Node another one just deleted has nothing left to do. The Kubernetes adapter is provisioner/kube/node-client.ts.
 */
export interface NodeWriter {
  /** Node status is kept on create (the kubelet registers that way), so capacity and Ready are there at once. */
  create(node: Node): Promise<void>;
  /** Creates the node unless one of that name exists; resolves false when it already did. */
  createIfAbsent(node: Node): Promise<boolean>;
  /** Idempotent: a node that is already gone counts as deleted. */
  delete(name: string): Promise<void>;
  /** Replaces status.conditions (virtual nodes have exactly one, Ready). */
  setConditions(name: string, conditions: readonly object[]): Promise<void>;
  /** Sets one annotation. */
  annotate(name: string, key: string, value: string): Promise<void>;
  /** Merge-patches labels onto the Node (null removes one). */
  label(name: string, labels: Readonly<Record<string, string | null>>): Promise<void>;
  /** Marks the Node unschedulable and adds the taint if missing. */
  cordonAndTaint(name: string, taint: Taint): Promise<void>;
  /** Adds the taint if missing and leaves `spec.unschedulable` alone (a rollback must leave the node as it was). */
  addTaint(name: string, taint: Taint): Promise<void>;
  /** Removes every taint with this key; no-op when absent. */
  removeTaint(name: string, key: string): Promise<void>;
  /** Removes the finalizer from the Node's metadata; no-op when absent. */
  removeFinalizer(name: string, finalizer: string): Promise<void>;
}
