import type { LabelSelector } from '../core/object-meta.js';
import type { NodeSelectorRequirement, NodeSelectorTerm } from '../core/node-selector.js';
import type { PodAffinityTerm } from '../core/affinity.js';
import type { Pod } from '../core/pod.js';
import { withMatchLabelKeys } from '../label-selector.js';
import { intersectRequirements, requirementsFromExpressions, requirementsFromLabels, requirementsSignature, type Requirements } from '../requirements/requirements.js';
import { labels as wellKnown } from '../well-known-labels.js';
import type { PodSteering } from '../pod-steering.js';
import { steeringRequirements } from './steering.js';

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

interface VariantContext { readonly ignorePreferences: boolean; readonly anyPreferNoScheduleTaint: boolean; readonly volumes: readonly NodeSelectorRequirement[]; readonly steering: PodSteering }

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

function variantRequirements(pod: Pod, state: RelaxState, context: VariantContext): Requirements {
  const nodeAffinity = pod.spec.affinity?.nodeAffinity;
  const required = nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const preferred = byWeight(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  let requirements = intersectRequirements(requirementsFromLabels(pod.spec.nodeSelector), termRequirements(required[state.requiredTerm]));
  // Karpenter treats the heaviest remaining preferred term as required until it is relaxed away.
  requirements = intersectRequirements(requirements, termRequirements(preferred[state.prefNode]?.preference));
  requirements = intersectRequirements(requirements, requirementsFromExpressions([...context.volumes, ...steeringRequirements(context.steering)]));
  const preference = context.steering.capacityTypePreference;
  if (preference === undefined || state.dropCapacityPreference) return requirements;
  return intersectRequirements(requirements, requirementsFromExpressions([{ key: wellKnown.capacityType, operator: 'In', values: [preference] }]));
}

function variantTerms(pod: Pod, state: RelaxState): TopologyTermSpec[] {
  const podAffinity = pod.spec.affinity?.podAffinity;
  const podAnti = pod.spec.affinity?.podAntiAffinity;
  return [
    ...(podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm('affinity', t, pod)),
    ...byWeight(podAffinity?.preferredDuringSchedulingIgnoredDuringExecution).slice(state.prefAffinity).map((t) => affinityTerm('affinity', t.podAffinityTerm, pod)),
    ...(podAnti?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm('antiAffinity', t, pod)),
    ...byWeight(podAnti?.preferredDuringSchedulingIgnoredDuringExecution).slice(state.prefAnti).map((t) => affinityTerm('antiAffinity', t.podAffinityTerm, pod)),
    ...spreadTerms(pod, !state.dropAnyway),
  ];
}

function variantFrom(pod: Pod, state: RelaxState, context: VariantContext, index: number): ShapeVariant {
  const requirements = variantRequirements(pod, state, context);
  return { index, requirements, signature: requirementsSignature(requirements), allowPreferNoSchedule: state.tolerateSoft, terms: variantTerms(pod, state), relaxed: [] };
}

/** How much of each relaxable kind a pod has. */
interface Relaxable { requiredTerms: number; prefAffinity: number; prefAnti: number; prefNode: number; anyway: boolean; preference: boolean; softTaints: boolean }

function relaxable(pod: Pod, context: VariantContext): Relaxable {
  const { nodeAffinity, podAffinity, podAntiAffinity } = pod.spec.affinity ?? {};
  const count = (list: readonly unknown[] | undefined): number => list?.length ?? 0;
  return {
    requiredTerms: count(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms),
    prefAffinity: count(podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    prefAnti: count(podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    prefNode: count(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    anyway: (pod.spec.topologySpreadConstraints ?? []).some((c) => c.whenUnsatisfiable === 'ScheduleAnyway'),
    preference: context.steering.capacityTypePreference !== undefined,
    softTaints: context.anyPreferNoScheduleTaint,
  };
}

type Step = readonly [applies: (s: RelaxState, r: Relaxable) => boolean, next: (s: RelaxState) => RelaxState, what: string];

/** Karpenter's relaxation order (preferences.go); our capacity-type preference goes before PreferNoSchedule. */
const steps: readonly Step[] = [
  [(s, r) => s.requiredTerm < r.requiredTerms - 1, (s) => ({ ...s, requiredTerm: s.requiredTerm + 1 }), 'a required node affinity term'],
  [(s, r) => s.prefAffinity < r.prefAffinity, (s) => ({ ...s, prefAffinity: s.prefAffinity + 1 }), 'a preferred pod affinity term'],
  [(s, r) => s.prefAnti < r.prefAnti, (s) => ({ ...s, prefAnti: s.prefAnti + 1 }), 'a preferred pod anti-affinity term'],
  [(s, r) => s.prefNode < r.prefNode, (s) => ({ ...s, prefNode: s.prefNode + 1 }), 'a preferred node affinity term'],
  [(s, r) => !s.dropAnyway && r.anyway, (s) => ({ ...s, dropAnyway: true }), 'ScheduleAnyway topology spread'],
  [(s, r) => !s.dropCapacityPreference && r.preference, (s) => ({ ...s, dropCapacityPreference: true }), 'the capacity-type preference'],
  [(s, r) => !s.tolerateSoft && r.softTaints, (s) => ({ ...s, tolerateSoft: true }), 'PreferNoSchedule taints'],
];

/** The next relaxation step, one at a time; undefined when nothing is left to relax. */
function nextState(s: RelaxState, r: Relaxable): [RelaxState, string] | undefined {
  const step = steps.find(([applies]) => applies(s, r));
  return step === undefined ? undefined : [step[1](s), step[2]];
}

/** Every relaxation step of a pod, most constrained first. */
export function buildVariants(pod: Pod, context: VariantContext): ShapeVariant[] {
  const ignore = context.ignorePreferences;
  let state: RelaxState = { requiredTerm: 0, prefAffinity: 0, prefAnti: 0, prefNode: 0, dropAnyway: false, dropCapacityPreference: false, tolerateSoft: false };
  if (ignore) state = { ...state, prefAffinity: Infinity, prefAnti: Infinity, prefNode: Infinity, dropAnyway: true, dropCapacityPreference: true };
  const variants = [variantFrom(pod, state, context, 0)];
  const relaxed: string[] = [];
  const counts = relaxable(pod, context);
  for (let step = nextState(state, counts); step !== undefined; step = nextState(state, counts)) {
    [state] = step;
    relaxed.push(step[1]);
    variants.push({ ...variantFrom(pod, state, context, variants.length), relaxed: [...relaxed] });
  }
  return variants;
}
