import type { Pod } from './core/pod.js';
import type { Taint, Toleration } from './core/taint.js';
import type { DaemonSet } from './core/workloads.js';
import type { NodeSelectorTerm } from './core/node-selector.js';
import { podRequests } from './pod-requests.js';
import { requirementsFromExpressions, requirementsFromLabels, firstUnmetKey } from './requirements/requirements.js';
import { requirementAllows, newRequirement } from './requirements/requirement.js';
import type { ResourceList } from './resource-list.js';
import { firstUntoleratedTaint, sameTaint } from './taints.js';
import { unregisteredTaintKey } from './karpenter-keys.js';

/** The node as the DaemonSet controller judges it: its labels, its name and its taints. */
export interface DaemonTarget {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly allocatable: ResourceList;
}

/**
 * The tolerations the DaemonSet controller adds to every daemon pod (kubernetes' daemon util, AddOrUpdateDaemonPodTolerations):
 * a node that is not ready, unreachable, under pressure or cordoned still gets its daemons.
 */
const daemonTolerations: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  // Karpenter's registration taint goes as the node registers; its daemons come then, and their room is kept until.
  { key: unregisteredTaintKey, operator: 'Exists' },
];
const hostNetworkToleration: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

function termMatches(term: NodeSelectorTerm, node: DaemonTarget): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // An empty term matches no node (core/v1 NodeSelectorTerm).
  if (expressions.length === 0 && fields.length === 0) return false;
  if (firstUnmetKey(requirementsFromExpressions(expressions), (key) => node.labels[key]) !== undefined) return false;
  return fields.every((f) => f.key === 'metadata.name' && requirementAllows(newRequirement(f.key, f.operator, f.values ?? []), node.name));
}

/**
 * Whether the DaemonSet controller would run this DaemonSet's pod on the node: its nodeSelector and required node
 * affinity match the node, and it tolerates every NoSchedule and NoExecute taint the node has, with the
 * tolerations the controller adds itself. `ignoredTaints` are taints that leave the node by themselves (a
 * NodeClaim's startup taints), which Karpenter does not hold against a daemon either.
 */
export function daemonRunsOn(daemonSet: DaemonSet, node: DaemonTarget, ignoredTaints: readonly Taint[] = []): boolean {
  const spec = daemonSet.spec.template.spec;
  if (firstUnmetKey(requirementsFromLabels(spec.nodeSelector), (key) => node.labels[key]) !== undefined) return false;
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms !== undefined && !terms.some((term) => termMatches(term, node))) return false;
  const tolerations = [...(spec.tolerations ?? []), ...daemonTolerations, ...(spec.hostNetwork === true ? [hostNetworkToleration] : [])];
  const binding = node.taints.filter((t) => t.effect !== 'PreferNoSchedule' && !ignoredTaints.some((i) => sameTaint(i, t)));
  return firstUntoleratedTaint(tolerations, binding) === undefined;
}

/** Whether the pod is this DaemonSet's: by the owner's uid when both have one, else by its name and namespace. */
function ownedBy(pod: Pod, daemonSet: DaemonSet): boolean {
  const uid = daemonSet.metadata.uid;
  return (pod.metadata.ownerReferences ?? []).some((owner) => owner.kind === 'DaemonSet'
    && (uid !== undefined && owner.uid !== undefined ? owner.uid === uid : owner.name === daemonSet.metadata.name && pod.metadata.namespace === daemonSet.metadata.namespace));
}

/**
 * The room a node must keep for the DaemonSet pods it will get but does not have yet, as Karpenter's scheduler
 * keeps it on existing nodes (the daemons' requests less those already running there). On a new node the daemon
 * pods come only after the Node exists, while pods placed through its plan (or by kube-scheduler on seeing an
 * empty node) arrive at once; without this room they take the daemons' place, and a node without its CNI pod
 * runs nothing. A daemon that would not fit the node even empty holds nothing: it could never run there, and
 * reserving for it would close the node to every other pod.
 */
export function pendingDaemonRequests(daemonSets: Iterable<DaemonSet>, node: DaemonTarget, podsOnNode: readonly Pod[], ignoredTaints: readonly Taint[] = []): ResourceList {
  const out: Record<string, number> = {};
  for (const daemonSet of daemonSets) {
    if (!daemonRunsOn(daemonSet, node, ignoredTaints) || podsOnNode.some((pod) => ownedBy(pod, daemonSet))) continue;
    const requests = podRequests({ metadata: daemonSet.spec.template.metadata ?? {}, spec: daemonSet.spec.template.spec });
    if (Object.entries(requests).some(([resource, amount]) => amount > (node.allocatable[resource] ?? Infinity))) continue;
    for (const [resource, amount] of Object.entries(requests)) out[resource] = (out[resource] ?? 0) + amount;
  }
  return out;
}
