import type { Problem } from './problem.js';

/**
 * The schema's problems plus the TypeScript rules'. The rules walk objects as the schema types them; on an
 * object the schema already refused they may meet a wrong type (a number where a key should be) and throw.
 * The schema's problems then are the answer, since they name the wrong type. A throw on an object the schema
 * passed is a bug of ours and propagates.
 */
export function withRules(structural: readonly Problem[], rules: () => readonly Problem[]): Problem[] {
  try {
    return [...structural, ...rules()];
  } catch (error: unknown) {
    if (structural.length > 0 && error instanceof TypeError) return [...structural];
    throw error;
  }
}
