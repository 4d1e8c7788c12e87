/**
 * The HTTP status of a failed API call (404 NotFound, 409 Conflict/AlreadyExists …); undefined otherwise. Read from
 * a numeric `code`, which our KubeApiError carries (so do test fakes); transport errors have string codes (ECONNRESET).
 */
export function statusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/**
 * 404 NotFound: the object is gone, usually deleted since the caller read it from the informer's cache. For a
 * write to it (a status patch, a label, a finalizer) that is not a failure: there is nothing left to write.
 */
export function isNotFound(error: unknown): boolean {
  return statusCode(error) === 404;
}

/** Rethrows anything but 404 NotFound (see isNotFound): for a write whose object may be gone. */
export function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}
