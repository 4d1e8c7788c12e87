import { identity, type ApiKind } from './api-kind.js';
import { podKindKeys, podTemplatePaths, type PodKindKey } from './pod-kind-paths.js';
import { checkPodResources } from './pod-resource-rules.js';
import { checkPodSteeringAnnotations } from './pod-steering-rules.js';
import type { Problem } from './problem.js';

type PodShaped = { metadata?: { annotations?: Record<string, string> }; spec?: unknown } | null | undefined;

/** A pod's (or pod template's) steering annotations and resource quantities, under `base` ('' for a Pod). */
function checkPodShaped(pod: PodShaped, base: string): Problem[] {
  const at = (field: string): string => (base === '' ? field : `${base}.${field}`);
  return [
    ...checkPodSteeringAnnotations(pod?.metadata?.annotations, at('metadata.annotations')),
    ...checkPodResources(pod?.spec, at('spec')),
  ];
}

function podTemplateKind(templatePath: readonly string[]): ApiKind {
  return {
    withDefaults: identity,
    validate: (object) => {
      let template: unknown = object;
      for (const key of templatePath) template = (template as Record<string, unknown> | null | undefined)?.[key];
      return checkPodShaped(template as PodShaped, templatePath.join('.'));
    },
  };
}

/** Pods and the workloads that template them: their pods' steering annotations and resource quantities. */
export const podKinds = Object.fromEntries(
  podKindKeys.map((key) => [key, podTemplateKind(podTemplatePaths[key])]),
) as Readonly<Record<PodKindKey, ApiKind>>;
