import type { FastifyInstance } from 'fastify';
import type { ClusterWatch } from '../provisioner/index.js';
import { build, type ExtenderAppOptions } from './app.js';
import { ClusterView } from './cluster-view.js';
import type { PodRequestsFn } from './resource-amounts.js';

/** The extender's default port (kube-scheduler's urlPrefix points here; the webhooks use 8443). */
export const defaultExtenderPort = 8444;

export interface ServeOptions extends Omit<ExtenderAppOptions, 'view'> {
  /** Feeds the view: nodes, pods and plans. Subscribed before listening, unsubscribed on close. */
  readonly watch: ClusterWatch;
  readonly podRequests?: PodRequestsFn;
  readonly host?: string;
  readonly port?: number;
}

export interface RunningExtender {
  readonly app: FastifyInstance;
  readonly view: ClusterView;
  /** e.g. "http://127.0.0.1:8444" (https when TLS is configured). */
  readonly url: string;
  close(): Promise<void>;
}

/** Builds the view and the app, subscribes the view to the watch, and listens. */
export async function serve(options: ServeOptions): Promise<RunningExtender> {
  const view = new ClusterView(options.podRequests);
  const unsubscribe = options.watch.subscribe((event) => {
    view.apply(event);
  });
  const app = build({ ...options, view });
  app.addHook('onClose', () => {
    unsubscribe();
    return Promise.resolve();
  });
  try {
    const url = await app.listen({ host: options.host ?? '0.0.0.0', port: options.port ?? defaultExtenderPort });
    return { app, view, url, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
