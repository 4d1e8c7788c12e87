import jsonPatch from 'fast-json-patch';
import { formatProblem, type Problem } from '../domain/api/problem.js';
import type { AdmissionResponse } from './admission-review.js';

/**
 * Denial codes: 422 (Unprocessable Entity, the API server's StatusReasonInvalid) for objects or
 * annotations that break a rule; 403 (Forbidden) for a caller who may not do this at all (the
 * binding guard). Both reach the user verbatim in kubectl's error.
 */
export const invalidCode = 422;
export const forbiddenCode = 403;

export function allow(uid: string, warnings: readonly string[] = []): AdmissionResponse {
  return { uid, allowed: true, ...(warnings.length > 0 ? { warnings: [...warnings] } : {}) };
}

export function deny(uid: string, message: string, code: number = invalidCode): AdmissionResponse {
  const reason = code === forbiddenCode ? 'Forbidden' : 'Invalid';
  return { uid, allowed: false, status: { code, message, reason, status: 'Failure' } };
}

/** One message naming every problem: `NodePool "a" is invalid: spec.weight: must be <= 100 (rule maximum, value 200); …`. */
export function denyProblems(uid: string, subject: string, problems: readonly Problem[]): AdmissionResponse {
  return deny(uid, `${subject} is invalid: ${problems.map(formatProblem).join('; ')}`);
}

/**
 * Allowed, with a JSON Patch that turns `original` into `mutated` (a diff, never hand-built ops);
 * patch and patchType appear only when there is something to change.
 */
export function allowWithPatch(uid: string, original: unknown, mutated: unknown): AdmissionResponse {
  const ops = jsonPatch.compare(original as object, mutated as object);
  if (ops.length === 0) return allow(uid);
  return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}
