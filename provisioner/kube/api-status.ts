import { ApiException } from '@kubernetes/client-node';

/** The HTTP status of a failed API call (404 NotFound, 409 Conflict/AlreadyExists …); undefined otherwise. */
export function statusCode(error: unknown): number | undefined {
  return error instanceof ApiException ? (error as ApiException<unknown>).code : undefined;
}
