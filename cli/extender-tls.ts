import type { Server } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { TlsReloader, type TlsFiles } from '../webhooks/tls-reloader.js';

/** How often the extender's certificate files are checked for a rotation (cert-manager, a Secret update). */
export const extenderCertReloadMs = 2_000;

/**
 * Keeps an HTTPS extender's certificate fresh, as the webhooks do: a rotated pair is picked up by new
 * connections without a restart, and a half-written pair is logged and retried while the old one keeps serving.
 * Returns the function that stops watching.
 */
export function reloadExtenderTls(app: FastifyInstance, files: TlsFiles, intervalMs = extenderCertReloadMs): () => void {
  const reloader = new TlsReloader(files, app.server as unknown as Server, {
    intervalMs,
    onError: (message) => { app.log.warn({ component: 'extender.tls' }, message); },
    onReload: () => { app.log.info({ component: 'extender.tls' }, 'reloaded serving certificate'); },
  });
  reloader.start();
  return () => { reloader.stop(); };
}
