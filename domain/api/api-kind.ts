import type { AdmissionGates } from './feature-gates.js';
import type { Problem } from './problem.js';

/** What we know how to default and validate, keyed by `apiVersion/kind`. */
export interface ApiKind {
  readonly withDefaults: <T>(object: T) => T;
  /** `gates`: the feature gates the controller runs with (default: Karpenter's); only gated fields read them. */
  readonly validate: (object: unknown, old?: unknown, gates?: AdmissionGates) => Problem[];
}

/** An object after the admission gate: defaulted, with every problem the API server and our webhooks would report. */
export interface AdmittedObject {
  readonly object: unknown;
  readonly problems: readonly Problem[];
}

export const identity = <T>(object: T): T => object;

/** `apiVersion/kind`, the key of the kind tables; undefined when the object names neither. */
export function apiKindKey(object: unknown): string | undefined {
  const o = object as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof o?.apiVersion !== 'string' || typeof o.kind !== 'string') return undefined;
  return `${o.apiVersion}/${o.kind}`;
}

/** Defaults, then validates, as the API server plus our webhooks would on CREATE. */
export function admitAs(kind: ApiKind, object: unknown, gates?: AdmissionGates): AdmittedObject {
  const defaulted = kind.withDefaults(object);
  return { object: defaulted, problems: kind.validate(defaulted, undefined, gates) };
}
