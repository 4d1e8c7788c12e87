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

export const apiKinds: Readonly<Record<string, ApiKind>> = {
  'karpenter.sh/v1/NodePool': { withDefaults: defaultNodePool, validate: validateNodePool },
  'karpenter.sh/v1/NodeClaim': { withDefaults: defaultNodeClaim, validate: validateNodeClaim },
  'karpenter.k8s.aws/v1/EC2NodeClass': { withDefaults: defaultEC2NodeClass, validate: validateEC2NodeClass },
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

/**
 * Defaults then validates, as the API server + our webhooks would on CREATE. Returns undefined
 * for kinds we don't know (the caller decides whether that is worth a note).
 */
export function validateApiObject(object: unknown): Problem[] | undefined {
  const kind = apiKindOf(object);
  return kind?.validate(kind.withDefaults(object));
}
