import type { Pod, PodSpec, PodTemplateSpec } from '../core/pod.js';
import { launchableTaint, podAnnotations } from '../product-keys.js';
import { toleratesLaunchable } from '../taints.js';
import { requestPodAnnotations, type ProvisioningRequest } from './provisioning-request.js';

/** Each PodSet's template, by its `podTemplateRef.name`, as read from the request's namespace. */
export type PodTemplates = ReadonlyMap<string, PodTemplateSpec>;

/** Why a request's pods cannot be made: a bad PodSet or a PodTemplate that is not there. */
export interface RequestInputProblem {
  readonly message: string;
}

/**
 * The request's pods as the pod webhook would admit them: the launchable toleration added unless the template opts
 * out (nodesmith.io/no-launchable-toleration), so a plan's room on a virtual node counts as it would for the real
 * pods Kueue creates later; and no node chosen.
 */
function admittedSpec(template: PodTemplateSpec): PodSpec {
  const optedOut = template.metadata?.annotations?.[podAnnotations.skipLaunchableToleration] === 'true';
  const unplaced = Object.fromEntries(Object.entries(template.spec).filter(([field]) => field !== 'nodeName')) as unknown as PodSpec;
  if (optedOut || toleratesLaunchable(template.spec.tolerations)) return unplaced;
  return { ...unplaced, tolerations: [...(template.spec.tolerations ?? []), { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect }] };
}

/** The first thing wrong with the request's PodSets, or undefined when every one names a template and a count. */
export function podSetProblem(request: ProvisioningRequest): RequestInputProblem | undefined {
  const podSets = request.spec.podSets;
  if (podSets.length === 0) return { message: 'spec.podSets is empty: a request needs at least one PodSet' };
  for (const [i, podSet] of podSets.entries()) {
    if ((podSet.podTemplateRef.name ?? '') === '') return { message: `spec.podSets[${String(i)}].podTemplateRef.name is empty` };
    if (!Number.isInteger(podSet.count) || podSet.count <= 0) return { message: `spec.podSets[${String(i)}].count is ${String(podSet.count)}: it must be at least 1` };
  }
  return undefined;
}

/** The names of the PodTemplates the request refers to, once each. */
export function templateNames(request: ProvisioningRequest): string[] {
  return [...new Set(request.spec.podSets.map((p) => p.podTemplateRef.name ?? ''))].filter((name) => name !== '');
}

/** One of the request's pods: `<request>-<podSet>-<index>`, its uid derived from its name as CA derives it. */
function podOf(request: ProvisioningRequest, template: PodTemplateSpec, spec: PodSpec, podName: string): Pod {
  const namespace = request.metadata.namespace ?? 'default';
  const annotations = { ...(template.metadata?.annotations ?? {}), [requestPodAnnotations.consume]: request.metadata.name ?? '', [requestPodAnnotations.className]: request.spec.provisioningClassName };
  const created = request.metadata.creationTimestamp;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace, uid: `${namespace}/${podName}`, labels: { ...(template.metadata?.labels ?? {}) }, annotations, ...(created === undefined ? {} : { creationTimestamp: created }) },
    spec,
    status: { phase: 'Pending' },
  };
}

/**
 * The pods the request asks room for: `count` pods of each PodSet's template, named and annotated as Cluster
 * Autoscaler names them (provisioningrequest/pods/pods.go: `<request>-<podSet>-<i>`, the consume and class
 * annotations, the request's creation time), so messages name the same pods. A problem instead when a PodSet is
 * malformed or names a template that is not in `templates`.
 */
export function requestPods(request: ProvisioningRequest, templates: PodTemplates): Pod[] | RequestInputProblem {
  const problem = podSetProblem(request);
  if (problem !== undefined) return problem;
  const pods: Pod[] = [];
  for (const [i, podSet] of request.spec.podSets.entries()) {
    const templateName = podSet.podTemplateRef.name ?? '';
    const template = templates.get(templateName);
    if (template === undefined) return { message: `PodTemplate "${templateName}" (spec.podSets[${String(i)}]) not found in namespace ${request.metadata.namespace ?? 'default'}` };
    const spec = admittedSpec(template);
    for (let j = 0; j < podSet.count; j++) pods.push(podOf(request, template, spec, `${request.metadata.name ?? ''}-${String(i)}-${String(j)}`));
  }
  return pods;
}

export function isInputProblem(value: Pod[] | RequestInputProblem): value is RequestInputProblem {
  return !Array.isArray(value);
}
