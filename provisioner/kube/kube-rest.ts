import { isNotFound } from './api-status.js';
import type { ApiConnection, ApiResponse } from './api-connection.js';

/** A refused API call: the HTTP status, the Status reason (NotFound, Conflict, AlreadyExists …) and its message. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly code: number;
  readonly reason: string | undefined;
  readonly body: string;

  constructor(code: number, body: string, action: string) {
    const status = statusOf(body);
    super(`${action}: ${String(code)} ${status?.message ?? body.slice(0, 500)}`);
    this.code = code;
    this.reason = status?.reason;
    this.body = body;
  }
}

function statusOf(body: string): { message?: string; reason?: string } | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; reason?: unknown };
    return {
      ...(typeof parsed.message === 'string' ? { message: parsed.message } : {}),
      ...(typeof parsed.reason === 'string' ? { reason: parsed.reason } : {}),
    };
  } catch {
    // Not a metav1.Status (a proxy's HTML page, say): the caller shows the raw text.
    return undefined;
  }
}

/** A resource's URL path: core (`version: 'v1'`, no group) or a group's, cluster-scoped or namespaced. */
export interface ResourceRef {
  readonly group?: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

export function resourcePath(r: ResourceRef, query: Readonly<Record<string, string>> = {}): string {
  const base = r.group === undefined ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const parts = [base];
  if (r.namespace !== undefined) parts.push('namespaces', encodeURIComponent(r.namespace));
  parts.push(r.plural);
  if (r.name !== undefined) parts.push(encodeURIComponent(r.name));
  if (r.subresource !== undefined) parts.push(r.subresource);
  const search = new URLSearchParams(query).toString();
  return `${parts.join('/').replace('//', '/')}${search === '' ? '' : `?${search}`}`;
}

/** Every write nodesmith makes is recorded under this field manager. */
export const fieldManager = 'nodesmith';

const mergePatchType = 'application/merge-patch+json';
const jsonPatchType = 'application/json-patch+json';

/**
 * JSON in, JSON out over the pooled connection: the five verbs the controllers use, each throwing a KubeApiError
 * that carries the status code (404, 409, 429 …) for the caller to decide on. Bodies are plain API JSON, so there
 * is no serializer between us and the wire (timestamps stay RFC 3339 strings).
 */
export class KubeRest {
  readonly #api: ApiConnection;

  constructor(api: ApiConnection) {
    this.#api = api;
  }

  get<T>(r: ResourceRef): Promise<T> {
    return this.#call<T>('GET', resourcePath(r));
  }

  /** A GET with query parameters: a list narrowed by `fieldSelector` or `labelSelector`. */
  list<T>(r: ResourceRef, query: Readonly<Record<string, string>>): Promise<T> {
    return this.#call<T>('GET', resourcePath(r, query));
  }

  /** A GET that answers undefined for 404. */
  async find<T>(r: ResourceRef): Promise<T | undefined> {
    try {
      return await this.get<T>(r);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  create<T>(r: ResourceRef, body: unknown): Promise<T> {
    return this.#call<T>('POST', resourcePath(r, { fieldManager }), body);
  }

  replace<T>(r: ResourceRef, body: unknown): Promise<T> {
    return this.#call<T>('PUT', resourcePath(r, { fieldManager }), body);
  }

  mergePatch<T>(r: ResourceRef, body: unknown): Promise<T> {
    return this.#call<T>('PATCH', resourcePath(r, { fieldManager }), body, mergePatchType);
  }

  jsonPatch<T>(r: ResourceRef, operations: readonly object[]): Promise<T> {
    return this.#call<T>('PATCH', resourcePath(r, { fieldManager }), operations, jsonPatchType);
  }

  async delete(r: ResourceRef, body?: unknown): Promise<void> {
    await this.#call<unknown>('DELETE', resourcePath(r), body);
  }

  close(): Promise<void> {
    return this.#api.close();
  }

  async #call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const response: ApiResponse = await this.#api.request(method, path, body, contentType);
    if (response.status < 200 || response.status >= 300) throw new KubeApiError(response.status, response.body, `${method} ${path.split('?')[0] ?? path}`);
    return (response.body === '' ? undefined : JSON.parse(response.body)) as T;
  }
}
