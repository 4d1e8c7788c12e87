import { admitAs, apiKindKey, type AdmittedObject, type ApiKind } from './api-kind.js';
import { ec2NodeClassKind } from './ec2nodeclass-validation.js';
import { nodeClaimKind } from './nodeclaim-validation.js';
import { nodeOverlayKind } from './nodeoverlay-validation.js';
import { capacityBufferKind } from './capacitybuffer-validation.js';
import { nodePoolKind } from './nodepool-validation.js';
import { podKinds } from './pod-kinds.js';
import { refusedKinds } from './refused-kinds.js';
import type { AdmissionGates } from './feature-gates.js';

export type { AdmittedObject, ApiKind } from './api-kind.js';

/**
 * Every kind, loaded up front: the webhooks answer synchronously and serve them all. `nodesmith validate` and
 * `plan` load only the kinds their files hold, through the same modules (api-kind-loaders.ts).
 */
export const apiKinds: Readonly<Record<string, ApiKind>> = {
  ...refusedKinds,
  'karpenter.sh/v1/NodePool': nodePoolKind,
  'karpenter.sh/v1/NodeClaim': nodeClaimKind,
  'karpenter.k8s.aws/v1/EC2NodeClass': ec2NodeClassKind,
  'karpenter.sh/v1alpha1/NodeOverlay': nodeOverlayKind,
  'autoscaling.x-k8s.io/v1beta1/CapacityBuffer': capacityBufferKind,
  ...podKinds,
};

export function apiKindOf(object: unknown): ApiKind | undefined {
  const key = apiKindKey(object);
  return key === undefined ? undefined : apiKinds[key];
}

/**
 * The one gate every way in shares (webhooks, `validate`, `plan`): defaults, then validates, as the API
 * server plus our webhooks would on CREATE. Undefined for kinds we don't know (the caller decides whether
 * that is worth a note).
 */
export function admitObject(object: unknown, gates?: AdmissionGates): AdmittedObject | undefined {
  const kind = apiKindOf(object);
  return kind === undefined ? undefined : admitAs(kind, object, gates);
}
