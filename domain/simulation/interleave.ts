import type { Pod } from '../core/pod.js';
import type { PlannedNodeClaim } from './simulation-input.js';

/**
 * Which pods of a plan are interchangeable: replicas of one controller from one template (same namespace, owner,
 * labels and requests) with nothing of their own that binds them to a place. A pod with a claim of its own (a
 * PersistentVolumeClaim or generic ephemeral volume: its volume's zone; a ResourceClaim: its devices) is not: the
 * plan put it where its own claim allows. Undefined for such pods, and for pods no controller owns.
 */
export function interchangeableKey(pod: Pod): string | undefined {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller === true);
  if (owner === undefined) return undefined;
  const spec = pod.spec as Pod['spec'] & { readonly resourceClaims?: readonly unknown[] };
  if ((spec.resourceClaims?.length ?? 0) > 0) return undefined;
  const ownClaim = (spec.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined || (v as { ephemeral?: unknown }).ephemeral !== undefined);
  if (ownClaim) return undefined;
  const requests = [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.resources?.requests ?? {});
  return JSON.stringify([pod.metadata.namespace ?? 'default', owner.uid, sorted(pod.metadata.labels ?? {}), requests]);
}

function sorted(record: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The same plan with the interchangeable pods of each kind dealt out across the new NodeClaims that hold that kind,
 * in the order kube-scheduler will take them (`order`, a comparator: first taken first). Each NodeClaim keeps
 * exactly as many pods of each kind as the simulation gave it, so every count the plan was checked against
 * (resources, spread, anti-affinity) is unchanged.
 *
 * Why: a virtual node launches when kube-scheduler binds its first pod to it, and kube-scheduler takes pending pods
 * oldest first. Packed in that order, the first NodeClaim took the oldest pods, the second the next ones, and so on:
 * the last node's launch began only once kube-scheduler had reached its pods, seconds after the first (3.7 s of a
 * 1,000-pod burst's 14 launches). Dealt out, kube-scheduler's first pods bind one to each node, and every launch
 * starts at once.
 */
export function interleaveInterchangeable(claims: readonly PlannedNodeClaim[], order: (a: Pod, b: Pod) => number): PlannedNodeClaim[] {
  // For each kind: the claims holding it, in order, with how many each holds; and its pods, oldest first.
  const kinds = new Map<string, { holders: { claim: number; count: number }[]; pods: Pod[] }>();
  // The pods that stay where the simulation put them, claim by claim; the others are dealt below.
  const dealt: Pod[][] = claims.map(() => []);
  claims.forEach((claim, index) => {
    for (const pod of claim.pods) {
      const key = interchangeableKey(pod);
      if (key === undefined) {
        dealt[index]?.push(pod);
        continue;
      }
      let kind = kinds.get(key);
      if (kind === undefined) kinds.set(key, (kind = { holders: [], pods: [] }));
      const last = kind.holders.at(-1);
      if (last?.claim === index) last.count++;
      else kind.holders.push({ claim: index, count: 1 });
      kind.pods.push(pod);
    }
  });
  for (const { holders, pods } of kinds.values()) {
    pods.sort(order);
    const left = holders.map((h) => h.count);
    let next = 0;
    for (const pod of pods) {
      while (left[next] === 0) next = (next + 1) % holders.length;
      (dealt[holders[next]?.claim ?? 0] ?? []).push(pod);
      left[next] = (left[next] ?? 0) - 1;
      next = (next + 1) % holders.length;
    }
  }
  return claims.map((claim, index) => ({ ...claim, pods: dealt[index] ?? [] }));
}

/**
 * kube-scheduler's queue order for pending pods (its PrioritySort plugin): higher priority first, then the pod that
 * waited longest. Creation times are whole seconds; within one, `pods`' own order (the order the watch delivered
 * them, which is the order they were created) breaks the tie.
 */
export function schedulingOrder(pods: readonly Pod[]): (a: Pod, b: Pod) => number {
  const position = new Map(pods.map((pod, index) => [pod, index]));
  const created = (pod: Pod): number => Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
  return (a, b) => (b.spec.priority ?? 0) - (a.spec.priority ?? 0) || created(a) - created(b) || (position.get(a) ?? 0) - (position.get(b) ?? 0);
}
