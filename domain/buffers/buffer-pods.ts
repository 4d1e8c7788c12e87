import type { CapacityBuffer } from '../api/capacitybuffer-schema.js';
import type { Pod, PodSpec, PodTemplateSpec } from '../core/pod.js';
import type { Toleration } from '../core/taint.js';
import { unregisteredTaintKey } from '../karpenter-keys.js';
import { launchableTaint } from '../product-keys.js';
import { bufferKey, bufferPodAnnotations } from './buffer-keys.js';

/** The lowest pod priority: a buffer's room is worth less than any workload's pod. */
const bufferPodPriority = -2147483648;

/**
 * Among pods of one size the simulation takes the older first (simulate.ts); a buffer's pods say they are the
 * newest there can be, so a workload's pending pod of the same size gets the room before the buffer does.
 */
const lastInQueue = '9999-12-31T23:59:59Z';

/**
 * The taints of a node on its way to Ready: a plan's virtual node, then the real node before its kubelet (not-ready,
 * unregistered). A workload's pod waits them out on a plan of its own; the room, placed again every pass, must see
 * such a node as the room it will be (as Karpenter's simulation ignores these ephemeral taints), or every launch for
 * it would look like no room and be launched again.
 */
const onTheWay: readonly Toleration[] = [
  { key: launchableTaint.key, operator: 'Exists' },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
  { key: unregisteredTaintKey, operator: 'Exists' },
];

/** A template's spec as room: no PVCs (no claim will ever exist for these pods), no node already chosen. */
function asRoom(spec: PodSpec): PodSpec {
  const dropped = new Set((spec.volumes ?? []).filter((v) => v.persistentVolumeClaim !== undefined || 'ephemeral' in v).map((v) => v.name));
  const unplaced = Object.fromEntries(Object.entries(spec).filter(([field]) => field !== 'nodeName')) as unknown as PodSpec;
  return {
    ...unplaced,
    volumes: (spec.volumes ?? []).filter((v) => !dropped.has(v.name)),
    priority: bufferPodPriority,
    tolerations: [...(spec.tolerations ?? []), ...onTheWay],
  };
}

/**
 * The buffer's room as `replicas` pods of its template, which the planner places like pending pods and which never
 * reach the API server: the template's labels (so spread and affinity count them), the buffer's annotations, and
 * names and uids derived from the buffer so a pass can tell whose room each one is.
 */
export function bufferPods(buffer: CapacityBuffer, template: PodTemplateSpec, replicas: number): Pod[] {
  const namespace = buffer.metadata.namespace ?? 'default';
  const name = buffer.metadata.name ?? '';
  const spec = asRoom(template.spec);
  const annotations = { [bufferPodAnnotations.virtual]: 'true', [bufferPodAnnotations.name]: name, [bufferPodAnnotations.namespace]: namespace };
  return Array.from({ length: replicas }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `capacity-buffer-${name}-${String(i + 1)}`,
      namespace,
      uid: `${buffer.metadata.uid ?? name}-${String(i + 1)}`,
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations,
      creationTimestamp: lastInQueue,
    },
    spec,
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
  }));
}

/** Whether a pod is a buffer's room rather than a pod of the API. */
export function isBufferPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[bufferPodAnnotations.virtual] === 'true';
}

/** The "namespace/name" of the buffer a virtual pod holds room for; undefined for a real pod. */
export function bufferOfPod(pod: Pod): string | undefined {
  if (!isBufferPod(pod)) return undefined;
  const annotations = pod.metadata.annotations ?? {};
  return bufferKey({ metadata: { namespace: annotations[bufferPodAnnotations.namespace] ?? 'default', name: annotations[bufferPodAnnotations.name] ?? '' } });
}
