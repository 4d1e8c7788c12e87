import { StringDecoder } from 'node:string_decoder';
import { objectKey } from '../../domain/core/object-key.js';
import type { ApiConnection } from './api-connection.js';

/** Which object a delete names. */
export interface ObjectRef {
  readonly metadata: { readonly namespace?: string; readonly name?: string };
}

/** What a reflector tells its consumer: the object as the API server last reported it, or that it is gone. */
export interface ReflectorHandlers<T> {
  upsert(object: T): void;
  remove(ref: ObjectRef): void;
}

export interface ReflectorSpec<T> {
  /** The resource's plural, for logs and errors. */
  readonly resource: string;
  /** The collection's path, e.g. `/api/v1/pods`. */
  readonly path: string;
  /** Trims a wire object to what the model keeps; the trimmed copy is the only one retained. */
  readonly project: (raw: unknown) => T;
  readonly onError?: (error: unknown) => void;
  /** Items per LIST page (client-go's pager uses 500). */
  readonly pageSize?: number;
  /**
   * A kind whose CRD may not be installed (ProvisioningRequest: Cluster Autoscaler's API, installed with Kueue). A
   * 404 on the LIST is then an empty kind, not an error: the source counts as synced, `onServed(false)` is called
   * once, and the LIST is tried again every `absentRecheckMs`, so a CRD installed later is picked up (`onServed(true)`).
   */
  readonly optional?: { readonly onServed: (served: boolean) => void; readonly absentRecheckMs?: number };
}

/** A running list+watch on one resource; `synced` resolves after the initial list was delivered. */
export interface InformerSource {
  readonly resource: string;
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

interface WatchEvent {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly resourceVersion?: string; readonly namespace?: string; readonly name?: string }; readonly code?: number; readonly message?: string };
}

interface ListPage {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: unknown[];
}

/** The resourceVersion is too old to watch from (410 Gone): list again. */
class Expired extends Error {}

/** The API server answered the watch with an error status (403, 500 …): back off and list again. */
class Refused extends Error {}

/** The LIST answered 404: the resource is not served (its CRD is not installed). */
class NotServed extends Error {}

/** How often an optional kind that is not served is looked for again. */
const absentRecheckMs = 30_000;

const maxBackoffMs = 30_000;

/** Waits `ms`, or less if the reflector stops meanwhile. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function describe(resource: string, status: number, body: string): Error {
  let message = body;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? body;
  } catch { /* not a Status: keep the text */ }
  return new Error(`watching ${resource}: ${String(status)} ${message.slice(0, 300)}`);
}

/**
 * client-go's reflector, on our pooled connection: LIST in pages, then WATCH from the list's resourceVersion with
 * bookmarks; a watch that ends is resumed from the last version seen, a 410 Gone lists again (and removes what
 * vanished meanwhile), and errors back off. Objects are projected as they arrive, so the whole wire object is
 * never kept (client-node's informer, which this replaced, kept its own cache of full objects beside ours, as classes).
 */
class Reflector<T> {
  readonly #api: ApiConnection;
  readonly #spec: ReflectorSpec<T>;
  readonly #handlers: ReflectorHandlers<T>;
  readonly abort = new AbortController();
  /** Keys of the objects delivered, so a relist can tell what was deleted during the gap. */
  readonly #known = new Set<string>();
  /** The last resourceVersion delivered: where the next watch starts. */
  #version = '';
  /** For an optional kind: whether the last LIST found it served (undefined before the first). */
  #served: boolean | undefined;

  constructor(api: ApiConnection, spec: ReflectorSpec<T>, handlers: ReflectorHandlers<T>) {
    this.#api = api;
    this.#spec = spec;
    this.#handlers = handlers;
  }

  async run(markSynced: () => void): Promise<void> {
    let backoffMs = 250;
    while (!this.#stopped()) {
      try {
        const version = await this.#list();
        this.#noteServed(true);
        markSynced();
        backoffMs = 250;
        await this.#watchFrom(version);
      } catch (error) {
        if (this.#stopped()) return;
        if (error instanceof Expired) continue;
        if (error instanceof NotServed && this.#spec.optional !== undefined) {
          this.#absent(markSynced);
          await sleep(this.#spec.optional.absentRecheckMs ?? absentRecheckMs, this.abort.signal);
          continue;
        }
        this.#spec.onError?.(error);
        await sleep(backoffMs, this.abort.signal);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  }

  #stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** An optional kind is not served: none of it exists (a CRD deleted takes its objects along). */
  #absent(markSynced: () => void): void {
    for (const key of this.#known) this.#handlers.remove(refOf(key));
    this.#known.clear();
    this.#noteServed(false);
    markSynced();
  }

  #noteServed(served: boolean): void {
    if (this.#spec.optional === undefined || this.#served === served) return;
    // The first LIST of a served kind is the normal case: only a change, or a kind absent from the start, is news.
    if (this.#served !== undefined || !served) this.#spec.optional.onServed(served);
    this.#served = served;
  }

  async #page(continueToken: string | undefined): Promise<ListPage> {
    const query = `limit=${String(this.#spec.pageSize ?? 500)}${continueToken === undefined ? '' : `&continue=${encodeURIComponent(continueToken)}`}`;
    const response = await this.#api.request('GET', `${this.#spec.path}?${query}`);
    if (response.status === 404) throw new NotServed(describe(this.#spec.resource, response.status, response.body).message);
    if (response.status !== 200) throw describe(this.#spec.resource, response.status, response.body);
    return JSON.parse(response.body) as ListPage;
  }

  async #list(): Promise<string> {
    const seen = new Set<string>();
    let continueToken: string | undefined;
    let version = '';
    do {
      const page = await this.#page(continueToken);
      for (const raw of page.items ?? []) seen.add(this.#upsert(raw));
      version = page.metadata?.resourceVersion ?? version;
      continueToken = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
    } while (continueToken !== undefined);
    // A relist after a gap: whatever was deleted meanwhile is not in the list.
    for (const key of this.#known) if (!seen.has(key)) this.#handlers.remove(refOf(key));
    this.#known.clear();
    for (const key of seen) this.#known.add(key);
    return version;
  }

  /**
   * Watches from `listed` on, for as long as the reflector runs. A watch that ends, or whose connection drops,
   * is resumed from the last version it delivered (client-go does the same): only a 410 Gone, or a watch the
   * API server refuses outright, goes back to a full LIST.
   */
  async #watchFrom(listed: string): Promise<void> {
    this.#version = listed;
    let backoffMs = 250;
    while (!this.#stopped()) {
      const started = Date.now();
      try {
        const delivered = await this.#watch();
        backoffMs = 250;
        // A watch the server ends at once with nothing in it, over and over, must not become a busy loop of
        // requests (client-go's "very short watch"). One that delivered events is resumed at once, as client-go
        // does: under load the API server ends every client's pod watch together, several times a second in a
        // 1,000-pod burst (its audit log; most likely its cacher dropping watchers that fell behind), and a pause
        // after each such close held nodesmith's pod watch 1-2.5 s behind kube-scheduler's.
        if (delivered === 0 && Date.now() - started < 1_000) await sleep(1_000, this.abort.signal);
      } catch (error) {
        if (this.#stopped() || error instanceof Expired || error instanceof Refused || error instanceof NotServed) throw error;
        this.#spec.onError?.(error);
        await sleep(backoffMs, this.abort.signal);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  }

  #upsert(raw: unknown): string {
    const object = this.#spec.project(raw);
    const key = objectKey((object as ObjectRef).metadata);
    this.#known.add(key);
    this.#handlers.upsert(object);
    return key;
  }

  #apply(event: WatchEvent): void {
    if (event.type === 'ERROR') {
      if (event.object.code === 410) throw new Expired();
      throw new Refused(`watching ${this.#spec.resource}: ${String(event.object.code)} ${event.object.message ?? ''}`);
    }
    if (event.type === 'ADDED' || event.type === 'MODIFIED') this.#upsert(event.object);
    else if (event.type === 'DELETED') {
      this.#known.delete(objectKey(event.object.metadata ?? {}));
      this.#handlers.remove({ metadata: event.object.metadata ?? {} });
    }
    // Every event, bookmarks included, moves the point a dropped watch resumes from.
    this.#version = event.object.metadata?.resourceVersion ?? this.#version;
  }

  /** One watch request, until the server ends it: how many events (bookmarks included) it delivered. */
  async #watch(): Promise<number> {
    // Spread the watches' ends (client-go: 5–10 min) so every resource does not re-watch at once.
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    const path = `${this.#spec.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(this.#version)}&timeoutSeconds=${String(timeoutSeconds)}`;
    const response = await this.#api.stream(path, { signal: this.abort.signal, idleTimeoutMs: (timeoutSeconds + 60) * 1000 });
    if (response.status === 410) throw new Expired();
    // The kind's CRD was removed while watched: for an optional kind, its objects are gone with it.
    if (response.status === 404) throw new NotServed(describe(this.#spec.resource, response.status, await response.body.text()).message);
    if (response.status !== 200) throw new Refused(describe(this.#spec.resource, response.status, await response.body.text()).message);
    const lines = new LineSplitter();
    let delivered = 0;
    for await (const chunk of response.body) {
      for (const line of lines.push(chunk)) {
        this.#apply(JSON.parse(line) as WatchEvent);
        delivered++;
      }
    }
    return delivered;
  }
}

/**
 * Splits a stream of chunks into its complete, non-empty lines (watch events are one JSON object a line). A
 * chunk may end inside a multi-byte character (a label value, an annotation); the decoder keeps those bytes for
 * the next chunk instead of turning them into replacement characters.
 */
export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  #buffered = '';

  push(chunk: Buffer): string[] {
    this.#buffered += this.#decoder.write(chunk);
    const parts = this.#buffered.split('\n');
    this.#buffered = parts.pop() ?? '';
    return parts.map((line) => line.trim()).filter((line) => line !== '');
  }
}

/** Starts a reflector; `synced` resolves once its first list is delivered. */
export function startReflector<T>(api: ApiConnection, spec: ReflectorSpec<T>, handlers: ReflectorHandlers<T>): InformerSource {
  const reflector = new Reflector(api, spec, handlers);
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => { markSynced = resolve; });
  const running = reflector.run(markSynced);
  return {
    resource: spec.resource,
    synced,
    stop: async () => {
      reflector.abort.abort();
      await running;
    },
  };
}

function refOf(key: string): ObjectRef {
  const slash = key.indexOf('/');
  return slash < 0 ? { metadata: { name: key } } : { metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } };
}
