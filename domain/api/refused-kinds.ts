import { identity, type ApiKind } from './api-kind.js';
import { problem } from './problem.js';
import { unsupportedKinds } from './unsupported-fields.js';

/** A kind nodesmith has no feature for: every object of it is refused with the kind's message. */
function refusedKind(message: string): ApiKind {
  return { withDefaults: identity, validate: (object) => [problem('kind', 'not-supported-yet', (object as { kind?: unknown } | null)?.kind, message)] };
}

/** Versions of Karpenter's kinds nodesmith does not serve (unsupported-fields.ts), each refused by name. */
export const refusedKinds: Readonly<Record<string, ApiKind>> = Object.fromEntries(
  Object.entries(unsupportedKinds).map(([key, message]) => [key, refusedKind(message)]),
);
