import type { Node } from '../core/node.js';
import type { Pod, PodTemplateSpec } from '../core/pod.js';
import type { DaemonSet } from '../core/workloads.js';
import { parseResourceList } from '../resource-list.js';
import { labels as wellKnown } from '../well-known-labels.js';
import type { SimulationNodePool, SnapshotNode } from './simulation-input.js';

/** A manifest object that does not have the shape its kind needs. */
export class ManifestError extends Error {
  readonly code = 'InvalidManifest' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** Kubernetes objects sorted by what the simulation does with them. */
export interface ManifestSet {
  readonly nodePools: SimulationNodePool[];
  readonly nodeClasses: Record<string, unknown>[];
  readonly pods: Pod[];
  readonly daemonSets: DaemonSet[];
  readonly nodes: Node[];
  /** NodeOverlays, applied to the catalog by the caller when the NodeOverlay gate is on. */
  readonly nodeOverlays: Record<string, unknown>[];
  /** "Kind name" of objects that were ignored. */
  readonly ignored: string[];
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(object: Obj, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) current = isObject(current) ? current[part] : undefined;
  return current;
}

function nameOf(object: Obj): string {
  const name = field(object, 'metadata.name');
  return typeof name === 'string' ? name : '<unnamed>';
}

function requireShape(object: Obj, where: string, checks: readonly (readonly [string, (v: unknown) => boolean, string])[]): void {
  for (const [path, ok, expected] of checks) {
    if (!ok(field(object, path))) throw new ManifestError(`${where}: ${path} must be ${expected}`);
  }
}

const isArray = (v: unknown): boolean => Array.isArray(v);
const isName = (v: unknown): boolean => typeof v === 'string' && v !== '';
const podTemplateChecks = [['spec.template.spec.containers', isArray, 'a list of containers']] as const;

function replicas(object: Obj, path: string, where: string): number {
  const value = field(object, path) ?? 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ManifestError(`${where}: ${path} must be a non-negative integer`);
  return value;
}

function podsFrom(object: Obj, count: number): Pod[] {
  const kind = String(object['kind']);
  const name = nameOf(object);
  const declared = field(object, 'metadata.namespace');
  const namespace = typeof declared === 'string' ? declared : 'default';
  const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
  const template = field(object, 'spec.template') as PodTemplateSpec;
  return Array.from({ length: count }, (_, i) => ({
    metadata: {
      ...(template.metadata ?? {}), name: `${name}-${i}`, namespace, uid: `${namespace}/${name}-${i}`,
      ownerReferences: [{ apiVersion, kind, name, controller: true }],
    },
    spec: template.spec,
  }));
}

function addWorkload(set: ManifestSet, object: Obj, where: string): void {
  const kind = String(object['kind']);
  requireShape(object, where, [['metadata.name', isName, 'a non-empty string'], ...podTemplateChecks]);
  if (kind === 'DaemonSet') set.daemonSets.push(object as unknown as DaemonSet);
  else if (kind === 'Job') set.pods.push(...podsFrom(object, replicas(object, 'spec.parallelism', where)));
  else set.pods.push(...podsFrom(object, replicas(object, 'spec.replicas', where)));
}

function addObject(set: ManifestSet, object: Obj, where: string): void {
  const kind = object['kind'];
  switch (kind) {
    case 'NodePool':
      requireShape(object, where, [['metadata.name', isName, 'a non-empty string'], ['spec.template.spec.requirements', isArray, 'a list of requirements']]);
      parseResourceList(field(object, 'spec.limits') as Record<string, string> | undefined);
      set.nodePools.push(object as unknown as SimulationNodePool);
      return;
    case 'EC2NodeClass': set.nodeClasses.push(object); return;
    case 'NodeOverlay': set.nodeOverlays.push(object); return;
    case 'Pod':
      requireShape(object, where, [['metadata.name', isName, 'a non-empty string'], ['spec.containers', isArray, 'a list of containers']]);
      set.pods.push(object as unknown as Pod);
      return;
    case 'Deployment': case 'StatefulSet': case 'Job': case 'DaemonSet': addWorkload(set, object, where); return;
    case 'Node': requireShape(object, where, [['metadata.name', isName, 'a non-empty string']]); set.nodes.push(object as unknown as Node); return;
    default: set.ignored.push(`${String(kind)} ${nameOf(object)}`);
  }
}

/**
 * Sorts parsed manifest documents into NodePools, EC2NodeClasses, pods (Deployments, StatefulSets and Jobs
 * expanded into their replicas), DaemonSets and Nodes. `List` objects are unwrapped. Throws ManifestError.
 */
export function collectManifests(documents: readonly { readonly source: string; readonly value: unknown }[]): ManifestSet {
  const set: ManifestSet = { nodePools: [], nodeClasses: [], pods: [], daemonSets: [], nodes: [], nodeOverlays: [], ignored: [] };
  for (const { source, value } of documents) {
    if (value === null || value === undefined) continue;
    if (!isObject(value) || typeof value['kind'] !== 'string') throw new ManifestError(`${source}: not a Kubernetes object (no kind)`);
    const items = value['kind'].endsWith('List') && Array.isArray(value['items']) ? value['items'] : [value];
    for (const item of items) {
      if (!isObject(item)) throw new ManifestError(`${source}: list item is not an object`);
      addObject(set, item, `${source}: ${String(item['kind'])} ${nameOf(item)}`);
    }
  }
  return set;
}

/** Existing nodes with the pods bound to them; the remaining pods (no nodeName) are pending. */
export function snapshotFrom(set: ManifestSet): { nodes: SnapshotNode[]; pending: Pod[] } {
  const byNode = new Map<string, Pod[]>(set.nodes.map((n) => [n.metadata.name ?? '', []]));
  const pending: Pod[] = [];
  for (const pod of set.pods) {
    const bound = pod.spec.nodeName === undefined ? undefined : byNode.get(pod.spec.nodeName);
    if (bound === undefined) pending.push(pod);
    else bound.push(pod);
  }
  const nodes = set.nodes.map((node) => {
    const name = node.metadata.name ?? '';
    return {
      name, labels: { [wellKnown.hostname]: name, ...(node.metadata.labels ?? {}) }, taints: node.spec?.taints ?? [],
      allocatable: parseResourceList(node.status?.allocatable ?? node.status?.capacity),
      capacity: parseResourceList(node.status?.capacity ?? node.status?.allocatable), pods: byNode.get(name) ?? [],
    };
  });
  return { nodes, pending };
}
