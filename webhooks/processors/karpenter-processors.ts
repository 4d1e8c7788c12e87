import { isDeepStrictEqual } from 'node:util';
import { apiKinds, type ApiKind } from '../../domain/api/api-objects.js';
import { productDomain } from '../../domain/product-keys.js';
import type { AdmissionRequest, AdmissionResponse } from '../admission-review.js';
import { allow, allowWithPatch, denyProblems } from '../admission-response.js';
import { subjectOf, type AdmissionConfig, type AdmissionProcessor } from '../processor.js';

function apiKind(key: string): ApiKind {
  const kind = apiKinds[key];
  if (kind === undefined) throw new Error(`no API kind ${key}`);
  return kind;
}

/**
 * What validation judges: the spec, and our own annotations (`nodesmith.io/…`, e.g. the minimum consolidation
 * saving), which change behaviour as much as the spec does.
 */
function judgedPartOf(object: unknown): unknown {
  const o = object as { spec?: unknown; metadata?: { annotations?: Record<string, string> } } | null | undefined;
  const ours = Object.entries(o?.metadata?.annotations ?? {}).filter(([key]) => key.startsWith(`${productDomain}/`));
  return { spec: o?.spec, ours: Object.fromEntries(ours) };
}

/** Defaulting: Karpenter's CRD defaults as a JSON Patch (usually empty: the API server defaults first). */
function mutating(key: string, plural: string, id: string): AdmissionProcessor {
  const kind = apiKind(key);
  return {
    id: `webhooks.mutate.${id}`,
    path: `/mutate/${plural}`,
    kinds: [key],
    process(request: AdmissionRequest): AdmissionResponse {
      if (request.operation === 'DELETE' || request.object == null) return allow(request.uid);
      return allowWithPatch(request.uid, request.object, kind.withDefaults(request.object));
    },
  };
}

/** Validation: every problem at once; on UPDATE the transition rules see the old object. */
function validating(key: string, plural: string, id: string): AdmissionProcessor {
  const kind = apiKind(key);
  return {
    id: `webhooks.validate.${id}`,
    path: `/validate/${plural}`,
    kinds: [key],
    process(request: AdmissionRequest, config: AdmissionConfig): AdmissionResponse {
      if (request.operation === 'DELETE' || request.object == null) return allow(request.uid);
      // Ratcheting, like the API server's for CRD rules: an update that leaves the spec and our annotations
      // alone (finalizer removal, labels, other annotations) must never be blocked by a rule the stored object
      // already broke, or an old invalid object could not even be deleted.
      if (request.operation === 'UPDATE' && isDeepStrictEqual(judgedPartOf(request.object), judgedPartOf(request.oldObject))) return allow(request.uid);
      const old = request.operation === 'UPDATE' ? request.oldObject : undefined;
      // Defaults first, as the API server does before validating admission, so offline and online agree.
      const problems = kind.validate(kind.withDefaults(request.object), old ?? undefined, config.gates);
      return problems.length === 0 ? allow(request.uid) : denyProblems(request.uid, subjectOf(request), problems);
    },
  };
}

export const mutateNodePool = mutating('karpenter.sh/v1/NodePool', 'nodepools', 'nodepool');
export const validateNodePool = validating('karpenter.sh/v1/NodePool', 'nodepools', 'nodepool');
export const mutateEC2NodeClass = mutating('karpenter.k8s.aws/v1/EC2NodeClass', 'ec2nodeclasses', 'ec2nodeclass');
export const validateEC2NodeClass = validating('karpenter.k8s.aws/v1/EC2NodeClass', 'ec2nodeclasses', 'ec2nodeclass');
export const validateNodeClaim = validating('karpenter.sh/v1/NodeClaim', 'nodeclaims', 'nodeclaim');
// NodeOverlay has no defaults of its own: validation only.
export const validateNodeOverlay = validating('karpenter.sh/v1alpha1/NodeOverlay', 'nodeoverlays', 'nodeoverlay');
// CapacityBuffer: provisioningStrategy's default is the CRD's; the gate is judged here, with the rest.
export const validateCapacityBuffer = validating('autoscaling.x-k8s.io/v1beta1/CapacityBuffer', 'capacitybuffers', 'capacitybuffer');
