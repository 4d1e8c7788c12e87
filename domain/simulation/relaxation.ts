import type { LabelSelector } from '../core/object-meta.js';
import type { NodeSelectorRequirement, NodeSelectorTerm } from '../core/node-selector.js';
import type { PodAffinityTerm } from '../core/affinity.js';
import type { Pod } from '../core/pod.js';
import { withMatchLabelKeys } from '../label-selector.js';
import { intersectRequirements, requirementsFromExpressions, requirementsFromLabels, requirementsSignature, type Requirements } from '../requirements/requirements.js';
import { labels as wellKnown } from '../well-known-labels.js';
import { steeringRequirements, type Steering } from './steering.js';

/** One topology constraint of a pod, normalised: spread, affinity or anti-affinity on any label key. */
export interface TopologyTermSpec {
  readonly kind: 'spread' | 'affinity' | 'antiAffinity';
  readonly topologyKey: string;
  /** undefined: every namespace. */
  readonly namespaces: readonly string[] | undefined;
  readonly selector: LabelSelector;
  readonly maxSkew: number;
  readonly minDomains: number;
  readonly honorNodeAffinity: boolean;
  readonly honorTaints: boolean;
}

/** The constraints a pod is held to at one step of relaxation. */
export interface ShapeVariant {
  readonly index: number;
  readonly requirements: Requirements;
  readonly signature: string;
  readonly allowPreferNoSchedule: boolean;
  readonly terms: readonly TopologyTermSpec[];
  /** What was relaxed to reach this variant, for messages. */
  readonly relaxed: readonly string[];
}

interface RelaxState { requiredTerm: number; prefAffinity: number; prefAnti: number; prefNode: number; dropAnyway: boolean; dropCapacityPreference: boolean; tolerateSoft: boolean }

interface VariantContext { readonly ignorePreferences: boolean; readonly anyPreferNoScheduleTaint: boolean; readonly volumes: readonly NodeSelectorRequirement[]; readonly steering: Steering }

function byWeight<T extends { weight: number }>(items: readonly T[] | undefined): T[] {
  return [...(items ?? [])].sort((a, b) => b.weight - a.weight);
}

function affinityTerm(kind: 'affinity' | 'antiAffinity', term: PodAffinityTerm, pod: Pod): TopologyTermSpec {
  const podLabels = pod.metadata.labels ?? {};
  const emptyNamespaceSelector = term.namespaceSelector !== undefined && Object.keys(term.namespaceSelector).length === 0;
  const namespaces = term.namespaces !== undefined && term.namespaces.length > 0 ? term.namespaces : [pod.metadata.namespace ?? 'default'];
  return {
    kind, topologyKey: term.topologyKey, namespaces: emptyNamespaceSelector ? undefined : namespaces,
    selector: withMatchLabelKeys(term.labelSelector, term.matchLabelKeys, podLabels) ?? { matchLabels: { '\u0000none': '' } },
    maxSkew: 0, minDomains: 0, honorNodeAffinity: true, honorTaints: false,
  };
}

function spreadTerms(pod: Pod, includeAnyway: boolean): TopologyTermSpec[] {
  return (pod.spec.topologySpreadConstraints ?? [])
    .filter((c) => includeAnyway || c.whenUnsatisfiable !== 'ScheduleAnyway')
    .map((c) => ({
      kind: 'spread' as const, topologyKey: c.topologyKey, namespaces: [pod.metadata.namespace ?? 'default'],
      selector: withMatchLabelKeys(c.labelSelector, c.matchLabelKeys, pod.metadata.labels ?? {}) ?? { matchLabels: { '\u0000none': '' } },
      maxSkew: c.maxSkew, minDomains: c.minDomains ?? 1,
      honorNodeAffinity: c.nodeAffinityPolicy !== 'Ignore', honorTaints: c.nodeTaintsPolicy === 'Honor',
    }));
}

function termRequirements(term: NodeSelectorTerm | undefined): Requirements {
  return requirementsFromExpressions(term?.matchExpressions ?? []);
}

function variantFrom(pod: Pod, state: RelaxState, context: VariantContext, index: number): ShapeVariant {
  const nodeAffinity = pod.spec.affinity?.nodeAffinity;
  const required = nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const preferred = byWeight(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  let requirements = intersectRequirements(requirementsFromLabels(pod.spec.nodeSelector), termRequirements(required[state.requiredTerm]));
  requirements = intersectRequirements(requirements, termRequirements(preferred[state.prefNode]?.preference));
  requirements = intersectRequirements(requirements, requirementsFromExpressions([...context.volumes, ...steeringRequirements(context.steering)]));
  const preference = context.steering.capacityTypePreference;
  if (preference !== undefined && !state.dropCapacityPreference) {
    requirements = intersectRequirements(requirements, requirementsFromExpressions([{ key: wellKnown.capacityType, operator: 'In', values: [preference] }]));
  }
  const podAffinity = pod.spec.affinity?.podAffinity;
  const podAnti = pod.spec.affinity?.podAntiAffinity;
  const terms = [
    ...(podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm('affinity', t, pod)),
    ...byWeight(podAffinity?.preferredDuringSchedulingIgnoredDuringExecution).slice(state.prefAffinity).map((t) => affinityTerm('affinity', t.podAffinityTerm, pod)),
    ...(podAnti?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm('antiAffinity', t, pod)),
    ...byWeight(podAnti?.preferredDuringSchedulingIgnoredDuringExecution).slice(state.prefAnti).map((t) => affinityTerm('antiAffinity', t.podAffinityTerm, pod)),
    ...spreadTerms(pod, !state.dropAnyway),
  ];
  return { index, requirements, signature: requirementsSignature(requirements), allowPreferNoSchedule: state.tolerateSoft, terms, relaxed: [] };
}

/** Karpenter's relaxation order (preferences.go), one step at a time; undefined when nothing is left to relax. */
function nextState(pod: Pod, s: RelaxState, context: VariantContext): [RelaxState, string] | undefined {
  const affinity = pod.spec.affinity;
  const requiredTerms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms.length ?? 0;
  if (s.requiredTerm < requiredTerms - 1) return [{ ...s, requiredTerm: s.requiredTerm + 1 }, 'a required node affinity term'];
  if (s.prefAffinity < (affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0)) return [{ ...s, prefAffinity: s.prefAffinity + 1 }, 'a preferred pod affinity term'];
  if (s.prefAnti < (affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0)) return [{ ...s, prefAnti: s.prefAnti + 1 }, 'a preferred pod anti-affinity term'];
  if (s.prefNode < (affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0)) return [{ ...s, prefNode: s.prefNode + 1 }, 'a preferred node affinity term'];
  if (!s.dropAnyway && (pod.spec.topologySpreadConstraints ?? []).some((c) => c.whenUnsatisfiable === 'ScheduleAnyway')) return [{ ...s, dropAnyway: true }, 'ScheduleAnyway topology spread'];
  if (!s.dropCapacityPreference && context.steering.capacityTypePreference !== undefined) return [{ ...s, dropCapacityPreference: true }, 'the capacity-type preference'];
  if (!s.tolerateSoft && context.anyPreferNoScheduleTaint) return [{ ...s, tolerateSoft: true }, 'PreferNoSchedule taints'];
  return undefined;
}

/** Every relaxation step of a pod, most constrained first. */
export function buildVariants(pod: Pod, context: VariantContext): ShapeVariant[] {
  const ignore = context.ignorePreferences;
  let state: RelaxState = { requiredTerm: 0, prefAffinity: 0, prefAnti: 0, prefNode: 0, dropAnyway: false, dropCapacityPreference: false, tolerateSoft: false };
  if (ignore) state = { ...state, prefAffinity: Infinity, prefAnti: Infinity, prefNode: Infinity, dropAnyway: true, dropCapacityPreference: true };
  const variants = [variantFrom(pod, state, context, 0)];
  const relaxed: string[] = [];
  for (let step = nextState(pod, state, context); step !== undefined; step = nextState(pod, state, context)) {
    [state] = step;
    relaxed.push(step[1]);
    variants.push({ ...variantFrom(pod, state, context, variants.length), relaxed: [...relaxed] });
  }
  return variants;
}
