import type { Socket } from 'node:net';
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
  /** Cuts every open connection, idle or not: the end of a shutdown's grace period. */
  closeAllConnections(): void;
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
  // The HTTP/2 server (with TLS) has no closeAllConnections, and HTTP/1.1 clients it also serves keep idle
  // connections open; so its sockets are tracked here.
  const sockets = new Set<Socket>();
  if (options.https !== undefined) {
    app.server.on('secureConnection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => { sockets.delete(socket); });
    });
  }
  const closeAllConnections = (): void => {
    if (options.https === undefined) app.server.closeAllConnections();
    else for (const socket of sockets) socket.destroy();
  };
  try {
    const url = await app.listen({ host: options.host ?? '0.0.0.0', port: options.port ?? defaultExtenderPort });
    return { app, view, url, closeAllConnections, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
