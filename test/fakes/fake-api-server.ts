// A stand-in API server on loopback for the adapters in provisioner/kube: it records every request and answers as
// the test says (status and JSON body), so the real connection, paths and error handling are exercised.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface SeenRequest { method: string; url: string; authorization: string | undefined; contentType: string | undefined; body: string }
export type Responder = (seen: SeenRequest) => { status: number; body?: unknown };

/** Listens until the test ends; the URL to reach it and every request it saw, in order. */
export async function apiServer(t: Test, respond: Responder): Promise<{ url: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString() };
      seen.push(request);
      const reply = respond(request);
      res.statusCode = reply.status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, seen };
}
