import { readFileSync, unwatchFile, watchFile, type StatWatcher } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface SecureContextTarget {
  setSecureContext(options: { cert: Buffer; key: Buffer }): void;
}

export function readTlsFiles(files: TlsFiles): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
}

/**
 * Swaps the serving certificate when its files change, without restarting or dropping
 * connections: `setSecureContext` applies to new TLS handshakes only. Polling (watchFile) rather
 * than fs.watch because Secret volumes are updated by an atomic symlink swap that inotify on the
 * file itself misses. A half-written pair (cert new, key old) fails createSecureContext and is
 * retried on the next poll instead of breaking the server.
 */
export class TlsReloader {
  private readonly files: TlsFiles;
  private readonly target: SecureContextTarget;
  private readonly options: { intervalMs: number; onError?: (message: string) => void; onReload?: () => void };
  private readonly listener: () => void;
  private lastError: string | undefined;

  constructor(
    files: TlsFiles,
    target: SecureContextTarget,
    options: { intervalMs: number; onError?: (message: string) => void; onReload?: () => void },
  ) {
    this.files = files;
    this.target = target;
    this.options = options;
    this.listener = () => { this.reload(); };
  }

  start(): void {
    for (const file of [this.files.certFile, this.files.keyFile]) {
      const watcher: StatWatcher = watchFile(file, { interval: this.options.intervalMs, persistent: false }, this.listener);
      watcher.unref();
    }
  }

  /** Loads the files now; returns false (and keeps the old context) when they are not a valid pair. */
  reload(): boolean {
    try {
      const pair = readTlsFiles(this.files);
      createSecureContext(pair);
      this.target.setSecureContext(pair);
      this.lastError = undefined;
      this.options.onReload?.();
      return true;
    } catch (error: unknown) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.options.onError?.(`reloading TLS certificate: ${this.lastError}`);
      return false;
    }
  }

  stop(): void {
    unwatchFile(this.files.certFile, this.listener);
    unwatchFile(this.files.keyFile, this.listener);
  }
}
