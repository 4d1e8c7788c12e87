import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { DaemonSet } from '../../domain/core/workloads.js';

/**
 * What to keep of a JSON value: `true` keeps it whole, an object keeps only the listed keys (each with its own
 * shape), a one-element array applies its shape to every item.
 */
type Shape = true | { readonly [key: string]: Shape } | readonly [Shape];

/** Annotations that are large and that nothing of ours reads. */
const droppedAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

function pick(value: unknown, shape: Shape): unknown {
  if (shape === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(shape)) {
    const [each] = shape as readonly [Shape];
    return Array.isArray(value) ? value.map((item: unknown) => pick(item, each)) : undefined;
  }
  if (Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const inner: Shape | undefined = (shape as Readonly<Record<string, Shape>>)[key];
    if (inner === undefined || source[key] === undefined) continue;
    out[key] = pick(source[key], inner);
  }
  return out;
}

function annotationsOf(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const [key, text] of Object.entries(value as Record<string, string>)) if (!droppedAnnotations.has(key)) out[key] = text;
  return Object.keys(out).length === 0 ? undefined : out;
}

const metadata = {
  name: true, namespace: true, uid: true, resourceVersion: true, generation: true, labels: true, creationTimestamp: true,
  deletionTimestamp: true, finalizers: true, ownerReferences: [{ apiVersion: true, kind: true, name: true, uid: true, controller: true }],
} as const;

const container = { name: true, resources: true, ports: [{ containerPort: true, hostPort: true, hostIP: true, protocol: true }], restartPolicy: true } as const;

const podSpec = {
  containers: [container], initContainers: [container], overhead: true, nodeName: true, nodeSelector: true, affinity: true,
  tolerations: true, topologySpreadConstraints: true, priority: true, priorityClassName: true, preemptionPolicy: true, schedulerName: true, schedulingGates: [{ name: true }],
  volumes: [{ name: true, persistentVolumeClaim: true, ephemeral: true }], hostNetwork: true, terminationGracePeriodSeconds: true,
  resourceClaims: true,
} as const;

const podShape = {
  apiVersion: true, kind: true, metadata,
  spec: podSpec,
  status: { phase: true, nominatedNodeName: true, startTime: true, conditions: [{ type: true, status: true, reason: true, lastTransitionTime: true }], resourceClaimStatuses: true },
} as const;

const nodeShape = {
  apiVersion: true, kind: true, metadata,
  spec: { providerID: true, unschedulable: true, taints: true },
  status: { capacity: true, allocatable: true, conditions: [{ type: true, status: true, reason: true, lastTransitionTime: true, lastHeartbeatTime: true }] },
} as const;

/** The projection with the object's annotations put back, less the ones nothing reads. */
function withAnnotations(raw: unknown, shaped: unknown): unknown {
  const meta = (raw as { metadata?: { annotations?: unknown } }).metadata;
  const annotations = annotationsOf(meta?.annotations);
  const out = shaped as { metadata?: Record<string, unknown> };
  if (annotations !== undefined && out.metadata !== undefined) out.metadata['annotations'] = annotations;
  return shaped;
}

/**
 * A Pod as the model keeps it: what scheduling, accounting, disruption and eviction read, nothing else (no
 * managedFields, images, env, probes, container statuses). A watch delivers the whole object; this copy is the
 * only one retained.
 */
export function projectPod(raw: unknown): Pod {
  return withAnnotations(raw, pick(raw, podShape)) as Pod;
}

/** A Node as the model keeps it: no images, addresses, nodeInfo or managedFields. */
export function projectNode(raw: unknown): Node {
  return withAnnotations(raw, pick(raw, nodeShape)) as Node;
}

/** A DaemonSet as the model keeps it: its selector and pod template, for the overhead on new nodes. */
export function projectDaemonSet(raw: unknown): DaemonSet {
  const shaped = pick(raw, { apiVersion: true, kind: true, metadata, spec: { selector: true, template: { metadata: { labels: true }, spec: podSpec } } });
  return withAnnotations(raw, shaped) as DaemonSet;
}

/**
 * Any other object: everything but managedFields and the last-applied annotation (they are small and few). The
 * caller names the type the API promises for this resource.
 */
export function projectWhole(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object') return raw;
  const { metadata: meta, ...rest } = raw as { metadata?: Record<string, unknown> };
  if (meta === undefined) return raw;
  const keptMeta = { ...meta };
  delete keptMeta['managedFields'];
  const kept = annotationsOf(meta['annotations']);
  if (kept === undefined) delete keptMeta['annotations'];
  else keptMeta['annotations'] = kept;
  return { ...rest, metadata: keptMeta };
}
