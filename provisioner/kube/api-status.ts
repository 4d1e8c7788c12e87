/**
 * The HTTP status of a failed API call (404 NotFound, 409 Conflict/AlreadyExists …); undefined otherwise. Read from
 * a numeric `code`, which our KubeApiError carries (so do test fakes); transport errors have string codes (ECONNRESET).
 */
export function statusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}
