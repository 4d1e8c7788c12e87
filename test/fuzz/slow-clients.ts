// Slow and oversized clients for the HTTPS servers: connections that trickle a request a byte a second, and
// bodies far over the server's limit sent as fast as the socket takes them.
import { connect, type TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

export interface Target { readonly host: string; readonly port: number; readonly ca: string }

export function targetOf(url: string, ca: string): Target {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port), ca };
}

function tlsConnect(target: Target): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port, ca: target.ca, ALPNProtocols: ['http/1.1'] }, () => { resolve(socket); });
    socket.once('error', reject);
  });
}

/** `count` connections, each sending a request's head one byte a second until stopped; how many the server closed. */
export async function slowLoris(target: Target, count: number, path: string): Promise<{ stop: () => void; closedByServer: () => number }> {
  const sockets = await Promise.all(Array.from({ length: count }, () => tlsConnect(target)));
  let closed = 0;
  let stopped = false;
  const head = `POST ${path} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nX-Slow: ${'a'.repeat(10_000)}`;
  const timers = sockets.map((socket) => {
    socket.on('error', () => undefined);
    socket.once('close', () => { if (!stopped) closed += 1; });
    let sent = 0;
    return setInterval(() => { if (!socket.destroyed) socket.write(head.charAt(sent++ % head.length)); }, 1000);
  });
  return {
    stop: () => {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
    closedByServer: () => closed,
  };
}

/** A POST declaring and sending `bytes` of body as fast as possible; the status the server answered, or 'closed'. */
export async function oversizedBody(target: Target, path: string, bytes: number): Promise<number | 'closed'> {
  const socket = await tlsConnect(target);
  return new Promise((resolve) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve(status === undefined ? 'closed' : Number(status));
    });
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nContent-Length: ${String(bytes)}\r\nConnection: close\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) { socket.once('drain', pump); return; }
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  });
}

/** p99 (ms) of `count` sequential calls by a well-behaved keep-alive client, and how many answered 200. */
export async function normalClient(url: string, ca: string, call: { path: string; body: string; count: number }): Promise<{ p99: number; ok: number }> {
  const dispatcher = new Agent({ connect: { ca } });
  const times: number[] = [];
  let ok = 0;
  try {
    for (let i = 0; i < call.count; i++) {
      const started = performance.now();
      const response = await request(`${url}${call.path}`, { dispatcher, method: 'POST', headers: { 'content-type': 'application/json' }, body: call.body });
      await response.body.text();
      times.push(performance.now() - started);
      if (response.statusCode === 200) ok += 1;
    }
  } finally {
    await dispatcher.close();
  }
  times.sort((a, b) => a - b);
  return { p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? Number.NaN, ok };
}
