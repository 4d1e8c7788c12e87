import { createSecureContext } from 'node:tls';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { KubeTarget } from './kube-config.js';

/** What came back: the status and the raw body, which for an error is usually a metav1.Status. */
export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

/** A response whose body is read as it arrives (watch events). */
export interface ApiStream {
  readonly status: number;
  readonly body: AsyncIterable<Buffer> & { text(): Promise<string> };
}

/** Connections each ApiConnection keeps to the API server: as many requests as are on their way at once. */
export const poolConnections = 32;

export interface ApiConnectionOptions {
  /** How long credentials from the kubeconfig are used before they are read again (rotated tokens, certs). */
  readonly refreshMs?: number;
  /** Per-request limit for the response headers and for each gap in the body. */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
}

/** The TLS settings a kubeconfig can carry. */
interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

interface Credentials {
  readonly dispatcher: Dispatcher;
  readonly headers: Readonly<Record<string, string>>;
  /** Identity of the TLS material and proxy: an unchanged refresh keeps the pooled connections. */
  readonly tlsKey: string;
  readonly readAt: number;
}

/**
 * A keep-alive connection pool to the API server: every API call nodesmith makes goes through one of these.
 * Credentials come from the KubeTarget (kubeconfig files, the pod's service account, exec plugins), read again
 * every `refreshMs` and at once after a 401, so rotated tokens and certificates are picked up without a restart.
 */
export class ApiConnection {
  readonly #target: KubeTarget;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #refreshMs: number;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  #credentials: Promise<Credentials> | undefined;

  constructor(target: KubeTarget, options: ApiConnectionOptions = {}) {
    let server: URL;
    try {
      server = new URL(target.server);
    } catch {
      throw new Error(`${target.source}: server ${target.server} is not a URL`);
    }
    this.#target = target;
    this.#origin = server.origin;
    // A server URL may carry a path prefix (API gateways, Rancher); API paths go below it.
    this.#basePath = server.pathname.replace(/\/+$/, '');
    this.#refreshMs = options.refreshMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Sends one request; a JSON body is serialised here (`contentType` for patches). Resolves with any status;
   * rejects only on transport errors.
   */
  async request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiResponse> {
    const first = await this.#send(await this.#current(), { method, path, body, contentType });
    if (first.status !== 401) return first;
    // An expired token or rotated certificate: read the credentials again and try once more.
    this.#target.invalidate();
    return this.#send(await this.#refresh(), { method, path, body, contentType });
  }

  /**
   * Opens a long-lived GET (a watch) and hands back the body as a stream. `idleTimeoutMs` bounds the silence
   * between chunks; the API server ends a watch itself after its `timeoutSeconds`.
   */
  async stream(path: string, options: { readonly signal: AbortSignal; readonly idleTimeoutMs: number }): Promise<ApiStream> {
    const open = async (credentials: Credentials): Promise<ApiStream> => {
      const response = await credentials.dispatcher.request({
        origin: this.#origin, path: `${this.#basePath}${path}`, method: 'GET', signal: options.signal,
        headers: { accept: 'application/json', ...credentials.headers },
        headersTimeout: this.#timeoutMs, bodyTimeout: options.idleTimeoutMs,
      });
      return { status: response.statusCode, body: response.body };
    };
    const first = await open(await this.#current());
    if (first.status !== 401) return first;
    await first.body.text().catch(() => undefined);
    this.#target.invalidate();
    return open(await this.#refresh());
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    const current = this.#credentials;
    this.#credentials = undefined;
    const credentials = await current?.catch(() => undefined);
    await credentials?.dispatcher.close();
  }

  async #send(credentials: Credentials, call: { method: string; path: string; body: unknown; contentType: string }): Promise<ApiResponse> {
    const { method, path, body, contentType } = call;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const response = await credentials.dispatcher.request({
      origin: this.#origin, path: `${this.#basePath}${path}`, method,
      headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': contentType }), ...credentials.headers },
      ...(payload === undefined ? {} : { body: payload }),
      headersTimeout: this.#timeoutMs, bodyTimeout: this.#timeoutMs,
    });
    return { status: response.statusCode, body: await response.body.text() };
  }

  #current(): Promise<Credentials> {
    const cached = this.#credentials;
    if (cached === undefined) return this.#refresh();
    return cached.then((credentials) => {
      if (this.#clock.now() - credentials.readAt < this.#refreshMs) return credentials;
      // Single flight: the first caller to see stale credentials reads them; the others wait for that read.
      return this.#credentials === cached ? this.#refresh() : this.#current();
    });
  }

  #refresh(): Promise<Credentials> {
    const previous = this.#credentials;
    const next = this.#read(previous);
    this.#credentials = next;
    // A failed read is not cached: the next request tries again.
    next.catch(() => {
      if (this.#credentials === next) this.#credentials = undefined;
    });
    return next;
  }

  async #read(previous: Promise<Credentials> | undefined): Promise<Credentials> {
    const target = this.#target;
    const { headers, ...material } = await target.credentials();
    const proxyUrl = target.proxyUrl;
    const tls: TlsSettings = {
      ...material, ...(target.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
      ...(target.tlsServerName === undefined ? {} : { servername: target.tlsServerName }),
    };
    const tlsKey = JSON.stringify([tls.ca, tls.cert, tls.key, tls.rejectUnauthorized, tls.servername, proxyUrl]);
    const readAt = this.#clock.now();
    const old = await previous?.catch(() => undefined);
    if (old?.tlsKey === tlsKey) return { ...old, headers, readAt };
    // close() lets requests already on the old pool finish before its connections go.
    if (old !== undefined) void old.dispatcher.close().catch(() => undefined);
    return { dispatcher: this.#dispatcher(tls, proxyUrl), headers, tlsKey, readAt };
  }

  #dispatcher(tls: TlsSettings, proxyUrl: string | undefined): Dispatcher {
    const pooling = { keepAliveTimeout: 30_000, connections: poolConnections };
    if (proxyUrl === undefined) {
      // One secure context for every connection: otherwise each new socket parses the CA bundle and key again.
      const { rejectUnauthorized, servername, ...material } = tls;
      const connect = {
        secureContext: createSecureContext(material),
        ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }), ...(servername === undefined ? {} : { servername }),
      };
      return new Agent({ ...pooling, connect });
    }
    if (!/^https?:/.test(proxyUrl)) throw new Error(`proxy-url ${proxyUrl}: only http and https proxies are supported for API calls on the hot path`);
    return new ProxyAgent({ ...pooling, uri: proxyUrl, requestTls: tls });
  }
}
