import * as k8s from '@kubernetes/client-node';

/** What an informer tells its consumer: the object as the API server last reported it. */
export interface InformerHandlers<T> {
  upsert(object: T): void;
  remove(object: T): void;
}

/** A running list+watch on one resource; `synced` resolves after the initial list was delivered. */
export interface InformerSource {
  readonly resource: string;
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

type ListFn<T extends k8s.KubernetesObject> = () => Promise<k8s.KubernetesListObject<T>>;

/**
 * Lists and watches `path` and feeds every object to `handlers`. client-node's informer stops for good
 * on a watch error (an API server restart, a 410 Gone), so it is restarted here after a backoff; the
 * relist re-delivers every object as an upsert, which consumers treat idempotently.
 */
export function startInformer<T extends k8s.KubernetesObject>(
  kc: k8s.KubeConfig,
  spec: { resource: string; path: string; list: ListFn<T>; onError?: (error: unknown) => void },
  handlers: InformerHandlers<T>,
): InformerSource {
  const informer = k8s.makeInformer<T>(kc, spec.path, spec.list);
  let stopped = false;
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => { markSynced = resolve; });
  informer.on('add', (o) => { handlers.upsert(o); });
  informer.on('update', (o) => { handlers.upsert(o); });
  informer.on('delete', (o) => { handlers.remove(o); });
  informer.on('connect', () => { markSynced(); });
  let backoffMs = 250;
  informer.on('error', (error) => {
    // Stopping aborts the open watch, which client-node reports as an error; that one is ours.
    if (stopped) return;
    spec.onError?.(error);
    const delay = backoffMs;
    backoffMs = Math.min(backoffMs * 2, 10_000);
    setTimeout(() => { if (!stopped) void informer.start().then(() => { backoffMs = 250; }, () => undefined); }, delay);
  });
  void informer.start().then(() => { markSynced(); }, (error: unknown) => { spec.onError?.(error); });
  return {
    resource: spec.resource,
    synced,
    stop: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}
