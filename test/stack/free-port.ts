import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out as the source port of an outgoing connection (ip_local_port_range), 32768 on
 * Linux by default. A port below it is never taken by a connection: a port picked from the kernel's own choice
 * (listen on 0, which draws from that range) was, between a SIGKILLed nodesmith and its restart on the same ports,
 * by one of the thousands of loopback connections the stacks beside it open (provision-restart: the restarted
 * process exited "EADDRINUSE 127.0.0.1:39145" and the test waited out its 240 s).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

const highest = ephemeralLow() - 1;
const lowest = Math.max(1024, highest - 12_000);

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => { resolve(false); });
    server.listen(port, '127.0.0.1', () => {
      server.close(() => { resolve(true); });
    });
  });
}

/**
 * A loopback port free now, below the kernel's range for outgoing connections' source ports, picked at random so
 * that stacks starting side by side rarely pick the same. Another process may still take it before its user binds
 * it: callers start on fresh ports again then (fresh-ports.ts).
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (await listenable(port)) return port;
  }
  throw new Error(`no free loopback port found between ${String(lowest)} and ${String(highest)} in 200 tries`);
}
