import type * as k8s from '@kubernetes/client-node';
import type { ProductStack } from './product-stack.js';

// Issue 37's "no pod left behind", beside overcommittedNodes' "no overcommit": the e2e tests, the soak and the benches
// all count these in every sample, from this one copy, so that they agree on what a pod left behind is.

/** How long a pod may stay Unschedulable while a NodePool could serve it: a launch and its node's registration. */
export const unschedulableGraceMs = 120_000;

/** A DaemonSet pod kube-scheduler found no room for on the real node it is made for. */
export interface DaemonWithoutRoom {
  /** namespace/name */
  readonly pod: string;
  readonly node: string;
  /** kube-scheduler's reason, as its condition words it. */
  readonly message: string;
}

/** kube-scheduler's PodScheduled=False condition with reason Unschedulable: it found no node that fits. */
export const unschedulableCondition = (pod: k8s.V1Pod): k8s.V1PodCondition | undefined =>
  pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');

const isDaemonPod = (pod: k8s.V1Pod): boolean => pod.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet') === true;
const podKey = (pod: k8s.V1Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/** The node a DaemonSet pod is made for: the DaemonSet controller pins it with a metadata.name field selector. */
function daemonTarget(pod: k8s.V1Pod): string {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.flatMap((term) => term.matchFields ?? []).find((f) => f.key === 'metadata.name')?.values?.[0] ?? '';
}

/**
 * The DaemonSet pods among `pods` that kube-scheduler marked Unschedulable for a real node of `nodes`: that node's
 * pods leave no room for its daemons, which a plan must always count. The DaemonSet controller also makes pods for
 * virtual nodes (a CNI tolerates every taint); they wait for nothing but the virtual node's removal, so do not count.
 */
export function daemonPodsWithoutRoom(pods: readonly k8s.V1Pod[], nodes: readonly k8s.V1Node[]): DaemonWithoutRoom[] {
  const realNodes = new Set(nodes.filter((n) => n.metadata?.labels?.['nodesmith.io/launchable'] === undefined).map((n) => n.metadata?.name ?? ''));
  return pods.flatMap((p) => {
    const condition = unschedulableCondition(p);
    const node = daemonTarget(p);
    return isDaemonPod(p) && condition !== undefined && realNodes.has(node) ? [{ pod: podKey(p), node, message: condition.message ?? '' }] : [];
  });
}

export const describeDaemonWithoutRoom = (d: DaemonWithoutRoom): string => `${d.pod} on ${d.node} (${d.message})`;

/**
 * Since when (ms) kube-scheduler has found no node for the pod: its condition's lastTransitionTime, which a failed
 * retry leaves alone. Undefined for a pod that is not Unschedulable.
 */
export function unschedulableSinceMs(pod: k8s.V1Pod): number | undefined {
  const condition = unschedulableCondition(pod);
  if (condition === undefined) return undefined;
  const since = new Date(condition.lastTransitionTime ?? pod.metadata?.creationTimestamp ?? Number.NaN).getTime();
  return Number.isNaN(since) ? undefined : since;
}

/** The pods among `pods` Unschedulable for longer than `afterMs` at `nowMs`, as "namespace/name for 130 s". */
export function podsUnschedulableLongerThan(pods: readonly k8s.V1Pod[], afterMs: number, nowMs: number): string[] {
  return pods.flatMap((p) => {
    const since = unschedulableSinceMs(p);
    return since === undefined || nowMs - since <= afterMs ? [] : [`${podKey(p)} for ${((nowMs - since) / 1000).toFixed(0)} s`];
  });
}

/**
 * Both counts over the whole cluster, for a bench's sample: DaemonSet pods without room, and the other pods
 * Unschedulable for longer than the grace (every NodePool of a bench serves every pod, so each one counts).
 */
export async function podsLeftBehind(product: Pick<ProductStack, 'core'>, afterMs = unschedulableGraceMs): Promise<{ daemonsWithoutRoom: string[]; unschedulable: string[] }> {
  // From the API server's watch cache (resourceVersion 0): a bench samples this every few seconds at 10,000 pods.
  const [pods, nodes] = await Promise.all([product.core.listPodForAllNamespaces({ resourceVersion: '0' }), product.core.listNode({ resourceVersion: '0' })]);
  return leftBehindOf(pods.items, nodes.items, afterMs);
}

/** The same counts over lists a caller already holds. */
export function leftBehindOf(pods: readonly k8s.V1Pod[], nodes: readonly k8s.V1Node[], afterMs = unschedulableGraceMs): { daemonsWithoutRoom: string[]; unschedulable: string[] } {
  return {
    daemonsWithoutRoom: daemonPodsWithoutRoom(pods, nodes).map(describeDaemonWithoutRoom),
    // A daemon pod made for a virtual node waits Unschedulable until that node goes: it is no workload left behind.
    unschedulable: podsUnschedulableLongerThan(pods.filter((p) => !isDaemonPod(p)), afterMs, Date.now()),
  };
}

/** What podsLeftBehind found, as a bench prints it: each count, then the first few it counted. */
export function leftBehindLines(found: { readonly daemonsWithoutRoom: readonly string[]; readonly unschedulable: readonly string[] }, look: { readonly qualifier?: string; readonly indent?: string } = {}): string {
  const { qualifier = '', indent = '' } = look;
  const line = (what: string, items: readonly string[]): string => `${indent}${what}${qualifier}: ${String(items.length)}${items.length === 0 ? '' : ` (${items.slice(0, 5).join('; ')})`}\n`;
  return line('DaemonSet pods without room', found.daemonsWithoutRoom) + line(`pods Unschedulable for more than ${String(unschedulableGraceMs / 60_000)} minutes`, found.unschedulable);
}
