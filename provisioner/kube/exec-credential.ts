import { execFile } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import type { ExecConfig } from './kubeconfig-file.js';

/** What an exec credential plugin returned, and until when it may be used. */
export interface ExecResult {
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Epoch ms; undefined means "until the API server refuses it". */
  readonly expiresAtMs?: number;
}

const timeoutMs = 60_000;
/** Credentials are renewed this long before they expire, so a request in flight does not carry a dead token. */
const expirySlackMs = 10_000;

function run(exec: ExecConfig, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  // As client-go: a command with a path separator is relative to the kubeconfig that named it; a bare name is looked up on PATH.
  const command = exec.command.includes('/') && !isAbsolute(exec.command) ? join(exec.baseDir, exec.command) : exec.command;
  const info = JSON.stringify({ apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false } });
  return new Promise((resolve, reject) => {
    execFile(command, [...exec.args], { env: { ...env, ...exec.env, KUBERNETES_EXEC_INFO: info }, timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error !== null) {
        reject(new Error(`exec credential plugin ${exec.command} failed: ${error.message.split('\n')[0] ?? ''}${stderr === '' ? '' : `: ${stderr.trim().slice(0, 500)}`}`, { cause: error }));
        return;
      }
      resolve(stdout);
    });
  });
}

function fail(exec: Pick<ExecConfig, 'command'>, why: string): never {
  throw new Error(`exec credential plugin ${exec.command}: ${why}`);
}

/** The ExecCredential's status, once kind and apiVersion are what the kubeconfig asked for. */
function statusOf(stdout: string, exec: Pick<ExecConfig, 'command' | 'apiVersion'>): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return fail(exec, 'did not print JSON');
  }
  const credential = (typeof doc === 'object' && doc !== null ? doc : {}) as { kind?: unknown; apiVersion?: unknown; status?: Record<string, unknown> };
  if (credential.kind !== 'ExecCredential') fail(exec, `printed kind ${String(credential.kind)}, not ExecCredential`);
  if (credential.apiVersion !== exec.apiVersion) fail(exec, `answered ${String(credential.apiVersion)}, but the kubeconfig asked for ${exec.apiVersion}`);
  return credential.status ?? {};
}

/** Parses an ExecCredential; anything else is an error naming the plugin and what was wrong. */
export function parseExecCredential(stdout: string, exec: Pick<ExecConfig, 'command' | 'apiVersion'>): ExecResult {
  const status = statusOf(stdout, exec);
  const field = (key: string): string | undefined => (typeof status[key] === 'string' && status[key] !== '' ? status[key] : undefined);
  const token = field('token');
  const cert = field('clientCertificateData');
  const key = field('clientKeyData');
  if (token === undefined && (cert === undefined || key === undefined)) fail(exec, 'status has neither a token nor a client certificate and key');
  const expiry = field('expirationTimestamp');
  const expiresAtMs = expiry === undefined ? undefined : Date.parse(expiry);
  if (expiresAtMs !== undefined && Number.isNaN(expiresAtMs)) fail(exec, `status.expirationTimestamp ${String(expiry)} is not a time`);
  const parts = { token, cert, key, expiresAtMs };
  return Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined));
}

/** Runs the plugin when needed: once, then again only after expiry or after the API server refused the credential. */
export class ExecCredentialSource {
  readonly #exec: ExecConfig;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #now: () => number;
  #current: Promise<ExecResult> | undefined;

  /** `env` is the process environment the plugin inherits (it needs PATH, HOME, AWS_PROFILE …). */
  constructor(exec: ExecConfig, env: Readonly<Record<string, string | undefined>>, now: () => number = Date.now) {
    this.#exec = exec;
    this.#env = env;
    this.#now = now;
  }

  async get(): Promise<ExecResult> {
    const cached = this.#current;
    if (cached !== undefined) {
      const result = await cached.catch(() => undefined);
      const fresh = result !== undefined && (result.expiresAtMs === undefined || result.expiresAtMs - expirySlackMs > this.#now());
      if (fresh) return result;
      // Single flight: whoever finds it stale first starts the run; the rest wait on that run.
      if (this.#current !== cached) return this.get();
    }
    const next = run(this.#exec, this.#env).then((stdout) => parseExecCredential(stdout, this.#exec));
    this.#current = next;
    next.catch(() => { if (this.#current === next) this.#current = undefined; });
    return next;
  }

  /** After a 401: the next get() runs the plugin again. */
  invalidate(): void {
    this.#current = undefined;
  }
}
