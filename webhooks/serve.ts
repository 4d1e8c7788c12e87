import type { Server } from 'node:https';
import type { FastifyInstance } from 'fastify';
import { buildWebhookServer, type WebhookServerOptions } from './app.js';
import { readTlsFiles, TlsReloader, type TlsFiles } from './tls-reloader.js';

/** How often the webhooks' certificate files are checked for a rotation. */
export const webhookCertReloadMs = 2000;

export const defaultWebhookPort = 9443;

export interface ServeWebhooksOptions extends Omit<WebhookServerOptions, 'https'>, TlsFiles {
  readonly host?: string;
  /** 0 picks a free port (tests). */
  readonly port?: number;
  readonly certReloadIntervalMs?: number;
}

export interface RunningWebhooks {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly reloader: TlsReloader;
  close(): Promise<void>;
}

/** Loads the certificate, builds the server, listens over HTTPS and keeps the certificate fresh. */
export async function serveWebhooks(options: ServeWebhooksOptions): Promise<RunningWebhooks> {
  const app = buildWebhookServer({ ...options, https: readTlsFiles(options) });
  const reloader = new TlsReloader(options, app.server as unknown as Server, {
    intervalMs: options.certReloadIntervalMs ?? webhookCertReloadMs,
    onError: (message) => { app.log.warn({ component: 'webhooks.tls' }, message); },
    onReload: () => { app.log.info({ component: 'webhooks.tls' }, 'reloaded serving certificate'); },
  });
  const url = await app.listen({ host: options.host ?? '0.0.0.0', port: options.port ?? defaultWebhookPort });
  reloader.start();
  return {
    app,
    url,
    reloader,
    async close(): Promise<void> {
      reloader.stop();
      await app.close();
    },
  };
}
