import { request as httpRequest, Agent as HttpAgent, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { BindArgs } from './binding.js';

/** Marks a bind one replica hands to the leader: the leader binds it itself and never hands it on. */
export const forwardedHeader = 'x-nodesmith-forwarded';

/** What the replica that forwards knows of the pod, for a leader whose watch has not delivered it yet. */
export interface ForwardedPod {
  /** The pod's requests as the forwarding replica computed them (the room check needs them). */
  readonly Requests: Readonly<Record<string, number>>;
  /** The pod's own controller.kubernetes.io/pod-deletion-cost, which the bind keeps. */
  readonly DeletionCost?: string;
}

export interface ForwardedBindArgs extends BindArgs {
  readonly Forwarded?: ForwardedPod;
}

export interface BindForwardingOptions {
  /** The leader's extender URL when another replica leads and published one; undefined: this replica binds. */
  readonly leaderUrl: () => string | undefined;
  /**
   * The certificate (PEM) this replica's extender serves, when it serves HTTPS. Every replica serves the one
   * certificate of the chart's Secret, so the leader must present exactly it: nothing is sent to another server.
   */
  readonly servedCert?: () => string | Buffer | undefined;
  /** Longest wait for the leader's answer when kube-scheduler's own wait is longer (default 55 s). */
  readonly timeoutMs?: number;
}

/** Why a forward got no answer from the leader; the caller reports it to kube-scheduler, which retries the pod. */
export class ForwardError extends Error {
  override readonly name = 'ForwardError';
}

/**
 * Hands a bind to the replica that leads. Two replicas binding to one real node each check its room against their
 * own view, and neither sees the other's binds in flight: in the soak, two pods bound through the two replicas in
 * the same 40 ms put 2,150m CPU on a node of 1,930m. Only the leader binds, so one process's check sees every bind.
 */
export class BindForwarder {
  readonly #o: BindForwardingOptions;
  readonly #http = new HttpAgent({ keepAlive: true });
  readonly #https = new HttpsAgent({ keepAlive: true, rejectUnauthorized: false });
  /** Sockets whose peer presented the served certificate. */
  readonly #verified = new WeakSet<TLSSocket>();

  constructor(options: BindForwardingOptions) {
    this.#o = options;
  }

  leaderUrl(): string | undefined {
    return this.#o.leaderUrl();
  }

  /** Sends the bind to the leader at `url`; resolves to its Error text ('' when bound), rejects with ForwardError. */
  forward(url: string, args: ForwardedBindArgs, signal: AbortSignal): Promise<string> {
    const target = new URL('bind', url.endsWith('/') ? url : `${url}/`);
    const body = Buffer.from(JSON.stringify(args));
    const https = target.protocol === 'https:';
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(this.#o.timeoutMs ?? 55_000)]);
    return new Promise<string>((resolve, reject) => {
      const fail = (why: string): void => { reject(new ForwardError(`the leader's extender at ${url} did not answer the bind: ${why}`)); };
      const options = { method: 'POST', signal: timeout, headers: { 'content-type': 'application/json', 'content-length': body.length, [forwardedHeader]: '1' } };
      const req: ClientRequest = https ? httpsRequest(target, { ...options, agent: this.#https }) : httpRequest(target, { ...options, agent: this.#http });
      req.on('error', (error) => { fail(error.message); });
      req.on('response', (res) => { void readReply(res).then(resolve, (error: unknown) => { fail(error instanceof Error ? error.message : String(error)); }); });
      if (!https) {
        req.end(body);
        return;
      }
      req.on('socket', (socket) => {
        const tls = socket as TLSSocket;
        const send = (): void => {
          const why = this.#checkPeer(tls);
          if (why === undefined) req.end(body);
          else req.destroy(new Error(why));
        };
        // A kept-alive socket was checked when it connected; a new one cannot finish its handshake before this event.
        if (this.#verified.has(tls)) send();
        else tls.once('secureConnect', send);
      });
    });
  }

  /** Undefined when the peer presented the certificate this replica serves, else why not. */
  #checkPeer(socket: TLSSocket): string | undefined {
    if (this.#verified.has(socket)) return undefined;
    const served = this.#o.servedCert?.();
    if (served === undefined) return 'this replica serves no certificate to compare the leader\'s with';
    // An empty object when the peer sent no certificate.
    const peer: { raw?: Buffer } = socket.getPeerCertificate();
    if (peer.raw?.equals(new X509Certificate(served).raw) !== true) return 'it presented a certificate other than the one this replica serves';
    this.#verified.add(socket);
    return undefined;
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** The leader's ExtenderBindingResult: `{ Error }`, '' when bound. */
async function readReply(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${String(res.statusCode)} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const error = typeof reply === 'object' && reply !== null ? (reply as { Error?: unknown }).Error : undefined;
  if (typeof error !== 'string') throw new Error(`HTTP ${String(res.statusCode)} without an Error field: ${text.slice(0, 200)}`);
  return error;
}
