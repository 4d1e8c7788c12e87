import { defaultEC2NodeClass, validateEC2NodeClass } from './ec2nodeclass-validation.js';
import { defaultNodeClaim, validateNodeClaim } from './nodeclaim-validation.js';
import { defaultNodePool, validateNodePool } from './nodepool-validation.js';
import { checkPodSteeringAnnotations } from './pod-steering-rules.js';
import type { Problem } from './problem.js';

/** What we know how to default and validate, keyed by `apiVersion/kind`. */
export interface ApiKind {
  readonly withDefaults: <T>(object: T) => T;
  readonly validate: (object: unknown, old?: unknown) => Problem[];
}

const identity = <T>(object: T): T => object;

type Annotated = { metadata?: { annotations?: Record<string, string> } } | undefined;

/** Workloads carry the steering annotations on their pod template; `nodesmith validate` checks them there. */
function podTemplateKind(templatePath: readonly string[]): ApiKind {
  return {
    withDefaults: identity,
    validate: (object) => {
      let template: unknown = object;
      for (const key of templatePath) template = (template as Record<string, unknown> | null | undefined)?.[key];
      return checkPodSteeringAnnotations((template as Annotated)?.metadata?.annotations, `${templatePath.join('.')}.metadata.annotations`);
    },
  };
}

export const apiKinds: Readonly<Record<string, ApiKind>> = {
  'karpenter.sh/v1/NodePool': { withDefaults: defaultNodePool, validate: validateNodePool },
  'karpenter.sh/v1/NodeClaim': { withDefaults: defaultNodeClaim, validate: validateNodeClaim },
  'karpenter.k8s.aws/v1/EC2NodeClass': { withDefaults: defaultEC2NodeClass, validate: validateEC2NodeClass },
  'apps/v1/Deployment': podTemplateKind(['spec', 'template']),
  'apps/v1/StatefulSet': podTemplateKind(['spec', 'template']),
  'apps/v1/ReplicaSet': podTemplateKind(['spec', 'template']),
  'batch/v1/Job': podTemplateKind(['spec', 'template']),
  'batch/v1/CronJob': podTemplateKind(['spec', 'jobTemplate', 'spec', 'template']),
  'v1/Pod': {
    withDefaults: identity,
    validate: (object) => checkPodSteeringAnnotations((object as { metadata?: { annotations?: Record<string, string> } } | null)?.metadata?.annotations),
  },
};

export function apiKindOf(object: unknown): ApiKind | undefined {
  const o = object as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof o?.apiVersion !== 'string' || typeof o.kind !== 'string') return undefined;
  return apiKinds[`${o.apiVersion}/${o.kind}`];
}
