import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { build, type ExtenderAppOptions } from './app.js';
import type { ClusterModel } from '../provisioner/index.js';

/** The extender's default port (kube-scheduler's urlPrefix points here; the webhooks use 8443). */
export const defaultExtenderPort = 8444;

export interface ServeOptions extends ExtenderAppOptions {
  readonly host?: string;
  readonly port?: number;
}

export interface RunningExtender {
  readonly app: FastifyInstance;
  readonly view: ClusterModel;
  /** e.g. "http://127.0.0.1:8444" (https when TLS is configured). */
  readonly url: string;
  /** Cuts every open connection, idle or not: the end of a shutdown's grace period. */
  closeAllConnections(): void;
  close(): Promise<void>;
}

/** Builds the app over the cluster model it is given and listens. */
export async function serve(options: ServeOptions): Promise<RunningExtender> {
  const { view } = options;
  const app = build(options);
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
