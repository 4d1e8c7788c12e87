import type { AdmissionGates } from '../domain/api/feature-gates.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';

/** What every processor may read: parsed once by the caller, frozen, never from the environment. */
export interface AdmissionConfig {
  /** `system:serviceaccount:<ns>:<name>` of the provisioner, the only user allowed to bind pods to virtual nodes. */
  readonly productServiceAccount: string;
  /** Namespaces whose pods are never mutated (the webhook configuration excludes them too; this is defence in depth). */
  readonly excludedNamespaces: readonly string[];
  /** The feature gates the controller runs with: a gated field is refused while its gate is off. */
  readonly gates: AdmissionGates;
}

/**
 * Admission logic with no HTTP in it: parse has already happened, the route wraps the result.
 * `id` is the component id ("webhooks.validate.nodepool"), reused as log component and metric label.
 */
export interface AdmissionProcessor {
  readonly id: string;
  readonly path: string;
  /** kindKey() values this processor judges; any other kind is allowed with a warning. */
  readonly kinds: readonly string[];
  process(request: AdmissionRequest, config: AdmissionConfig): AdmissionResponse;
}

/** "NodePool \"default\"", for messages. */
export function subjectOf(request: AdmissionRequest): string {
  const name = request.name ?? (request.object as { metadata?: { name?: string } } | undefined)?.metadata?.name;
  return name === undefined || name === '' ? request.kind.kind : `${request.kind.kind} "${name}"`;
}
