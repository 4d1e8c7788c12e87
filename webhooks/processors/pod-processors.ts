import { admitObject } from '../../domain/api/api-objects.js';
import type { Toleration } from '../../domain/core/taint.js';
import { launchableTaint, podAnnotations } from '../../domain/product-keys.js';
import { toleratesLaunchable } from '../../domain/taints.js';
import type { AdmissionRequest, AdmissionResponse } from '../admission-review.js';
import { allow, allowWithPatch, denyProblems } from '../admission-response.js';
import { refuseVirtualPlacement } from './binding-guard.js';
import { subjectOf, type AdmissionConfig, type AdmissionProcessor } from '../processor.js';

interface PodLike {
  metadata?: { annotations?: Record<string, string>; ownerReferences?: { kind?: string; controller?: boolean }[] };
  spec?: { tolerations?: Toleration[]; nodeName?: string };
}

/** DaemonSet and mirror pods follow their node; they never cause or take a launch (as in Karpenter). */
function isNodeBound(pod: PodLike): boolean {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller === true);
  return owner?.kind === 'DaemonSet' || owner?.kind === 'Node' || (pod.spec?.nodeName ?? '') !== '';
}

/** A spec that is not an object, or tolerations that are not a list: the API server refuses such a pod on its own, and a patch could not apply. */
function isMalformed(pod: PodLike): boolean {
  const spec: unknown = pod.spec;
  if (spec === undefined) return false;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return true;
  return pod.spec?.tolerations !== undefined && !Array.isArray(pod.spec.tolerations);
}

function skipReason(request: AdmissionRequest, pod: PodLike, config: AdmissionConfig): string | undefined {
  if (request.operation !== 'CREATE') return 'not a create';
  if (isMalformed(pod)) return 'not a pod spec';
  if (request.namespace !== undefined && config.excludedNamespaces.includes(request.namespace)) return 'namespace excluded';
  if (isNodeBound(pod)) return 'bound to a node already';
  if (pod.metadata?.annotations?.[podAnnotations.skipLaunchableToleration] === 'true') return 'opted out';
  if (toleratesLaunchable(pod.spec?.tolerations)) return 'already tolerated';
  return undefined;
}

/**
 * Pods may land on virtual nodes only if they tolerate the launchable taint; this adds that
 * toleration to every new pod unless it opts out (then it only ever runs on existing nodes).
 */
export const mutatePod: AdmissionProcessor = {
  id: 'webhooks.mutate.pod',
  path: '/mutate/pods',
  kinds: ['v1/Pod'],
  process(request, config): AdmissionResponse {
    const pod = request.object as PodLike | null | undefined;
    if (pod == null || typeof pod !== 'object') return allow(request.uid);
    if (skipReason(request, pod, config) !== undefined) return allow(request.uid);
    const mutated = structuredClone(pod);
    mutated.spec ??= {};
    mutated.spec.tolerations = [...(mutated.spec.tolerations ?? []), { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect }];
    return allowWithPatch(request.uid, pod, mutated);
  },
};

/**
 * Steering annotations are read by the planner much later; a typo must fail now, at the user's
 * kubectl. A pod created with `spec.nodeName` already set never goes through pods/binding, so the
 * binding guard's rule (refuseVirtualPlacement) is applied here too, for that path.
 */
export const validatePod: AdmissionProcessor = {
  id: 'webhooks.validate.pod',
  path: '/validate/pods',
  kinds: ['v1/Pod'],
  process(request, config): AdmissionResponse {
    const pod = request.object as PodLike | null | undefined;
    if (request.operation === 'DELETE' || pod == null) return allow(request.uid);
    const refused = refuseVirtualPlacement(request, config, { field: 'spec.nodeName', node: pod.spec?.nodeName, act: 'creating a pod on' });
    if (refused !== undefined) return refused;
    // The same gate as `nodesmith validate` and `plan`: steering annotations and resource quantities.
    const problems = admitObject({ ...pod, apiVersion: 'v1', kind: 'Pod' })?.problems ?? [];
    return problems.length === 0 ? allow(request.uid) : denyProblems(request.uid, subjectOf(request), problems);
  },
};
