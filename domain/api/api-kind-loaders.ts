import { admitAs, apiKindKey, type AdmittedObject, type ApiKind } from './api-kind.js';
import type { AdmissionGates } from './feature-gates.js';
import { podKindKeys } from './pod-kind-paths.js';
import { refusedKinds } from './refused-kinds.js';

type KindLoader = () => Promise<ApiKind>;

/**
 * The kinds of api-objects.ts, each imported on the first object of it. A kind's rules with its precompiled schema
 * are most of what `nodesmith validate` runs, and compiling every kind's took half its start-up: validating one
 * NodePool now loads the NodePool's alone (DECISIONS.md, "validate loads only its own code, and only the kinds it
 * meets").
 * The webhooks keep api-objects.ts, whose table is synchronous; test/domain/api/api-kind-loaders.test.ts holds
 * the two tables to the same kinds and rules.
 */
export const kindLoaders: Readonly<Record<string, KindLoader>> = {
  ...Object.fromEntries(Object.entries(refusedKinds).map(([key, kind]) => [key, () => Promise.resolve(kind)])),
  'karpenter.sh/v1/NodePool': async () => (await import('./nodepool-validation.js')).nodePoolKind,
  'karpenter.sh/v1/NodeClaim': async () => (await import('./nodeclaim-validation.js')).nodeClaimKind,
  'karpenter.k8s.aws/v1/EC2NodeClass': async () => (await import('./ec2nodeclass-validation.js')).ec2NodeClassKind,
  'karpenter.sh/v1alpha1/NodeOverlay': async () => (await import('./nodeoverlay-validation.js')).nodeOverlayKind,
  'autoscaling.x-k8s.io/v1beta1/CapacityBuffer': async () => (await import('./capacitybuffer-validation.js')).capacityBufferKind,
  // One small module for every pod kind, loaded on the first pod or workload.
  ...Object.fromEntries(podKindKeys.map((key) => [key, async () => (await import('./pod-kinds.js')).podKinds[key]])),
};

/** admitObject of api-objects.ts, loading the object's kind first; undefined for kinds we don't know. */
export async function admitObjectLazily(object: unknown, gates?: AdmissionGates): Promise<AdmittedObject | undefined> {
  const key = apiKindKey(object);
  const load = key === undefined ? undefined : kindLoaders[key];
  return load === undefined ? undefined : admitAs(await load(), object, gates);
}
