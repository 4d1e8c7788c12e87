import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import t from 'tap';
import { freePort } from './free-port.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

void t.test('freePort gives a port below the range the kernel takes source ports of outgoing connections from, and free to listen on', async (t) => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  t.ok(ports.every((p) => p >= 1024 && p < ephemeralLow), `all below ${String(ephemeralLow)}: ${ports.join(', ')}`);
  t.ok(new Set(ports).size > 10, 'picked at random, so stacks starting side by side rarely collide');
  const port = ports[0] ?? 0;
  const server = createServer();
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve); });
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  t.pass(`listened on ${String(port)}`);
});
