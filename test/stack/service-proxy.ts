import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ServiceBackend {
  readonly port: number;
  /** The readiness probe: only a backend that passes it receives new connections (an Endpoint that is ready). */
  readonly isReady: () => Promise<boolean>;
}

export interface ServiceProxy {
  /** 127.0.0.1:port of the "Service". */
  readonly port: number;
  /** New connections each backend received, by its index. */
  readonly connections: readonly number[];
  /**
   * Sends every connection to these backends (by index) from now on and closes the others' connections, as if
   * kube-proxy had picked them for every connection kube-scheduler keeps open; undefined spreads over all again.
   */
  routeOnlyTo(indexes: readonly number[] | undefined): void;
  /**
   * Resets every connection open now (both sides), as a load balancer's idle timeout or a conntrack flush does:
   * the clients' watches and keep-alive connections die mid-stream; new connections go through. Returns how many
   * client connections were cut.
   */
  resetAll(): number;
  stop(): Promise<void>;
}

/**
 * What a ClusterIP Service does for the local stack, where the processes run on loopback ports: TCP connections
 * spread round-robin over the backends whose readiness probe passes (probed every `probeMs`, like the kubelet's
 * readiness probe feeding the EndpointSlice), each connection staying with its backend until one side closes it,
 * as kube-proxy's conntrack does. A backend that dies drops its connections; the next probe takes it out.
 */
export async function startServiceProxy(backends: readonly ServiceBackend[], probeMs = 1000, failureThreshold = 3): Promise<ServiceProxy> {
  const ready = backends.map(() => false);
  const failures = backends.map(() => 0);
  const connections = backends.map(() => 0);
  const open = new Map<Socket, number>();
  let only: readonly number[] | undefined;
  let next = 0;
  let stopped = false;
  const probe = async (): Promise<void> => {
    // The kubelet's probe: ready at the first success, not ready after failureThreshold failures in a row (its
    // default 3), so one probe slowed past its timeout on a loaded machine takes no endpoint out.
    await Promise.all(backends.map(async (b, i) => {
      const ok = await b.isReady().catch(() => false);
      failures[i] = ok ? 0 : (failures[i] ?? 0) + 1;
      if (ok) ready[i] = true;
      else if ((failures[i] ?? 0) >= failureThreshold) ready[i] = false;
    }));
  };
  await probe();
  const timer = setInterval(() => { void probe(); }, probeMs);
  const server = createServer((client) => {
    const candidates = backends.map((_, i) => i).filter((i) => ready[i] === true && (only === undefined || only.includes(i)));
    if (candidates.length === 0) {
      client.destroy();
      return;
    }
    const index = candidates[next++ % candidates.length] ?? 0;
    connections[index] = (connections[index] ?? 0) + 1;
    const upstream = connect({ host: '127.0.0.1', port: backends[index]?.port ?? 0 });
    // A refused connection means the process is gone: the kubelet sees its container exit and the endpoint goes
    // at once, without waiting for probes to fail.
    upstream.once('error', (error: NodeJS.ErrnoException) => { if (error.code === 'ECONNREFUSED') ready[index] = false; });
    for (const socket of [client, upstream]) {
      open.set(socket, index);
      socket.once('close', () => { open.delete(socket); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    routeOnlyTo: (indexes) => {
      only = indexes;
      for (const [socket, index] of open) if (indexes !== undefined && !indexes.includes(index)) socket.destroy();
    },
    resetAll: () => {
      const sockets = [...open.keys()];
      for (const socket of sockets) {
        try { socket.resetAndDestroy(); } catch { socket.destroy(); }
      }
      return sockets.length / 2;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      for (const socket of open.keys()) socket.destroy();
      await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
    },
  };
}
