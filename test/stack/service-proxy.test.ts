import { connect, createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startServiceProxy } from './service-proxy.js';

/** A backend that answers each connection with its name. */
async function namedServer(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => { socket.end(name); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function answer(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.on('data', (d: Buffer) => { text += d.toString(); });
    socket.on('close', () => { resolve(text); });
    socket.on('error', () => { resolve(''); });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

void t.test('one failed readiness probe keeps a backend in the Service; three in a row take it out', async (t) => {
  const a = await namedServer('a');
  let aReady = true;
  const proxy = await startServiceProxy([{ port: a.port, isReady: () => Promise.resolve(aReady) }], 50);
  t.teardown(async () => { await proxy.stop(); a.server.close(); });
  aReady = false;
  await sleep(70);
  t.equal(await answer(proxy.port), 'a', 'still served after one failed probe (a probe timing out on a busy machine)');
  await sleep(200);
  t.equal(await answer(proxy.port), '', 'refused once three probes failed in a row');
  aReady = true;
  await sleep(120);
  t.equal(await answer(proxy.port), 'a', 'back at the first probe that passes');
});

void t.test('a backend that refuses a connection leaves the Service at once, as a dead container does', async (t) => {
  const a = await namedServer('a');
  const b = await namedServer('b');
  const proxy = await startServiceProxy([{ port: a.port, isReady: () => Promise.resolve(true) }, { port: b.port, isReady: () => Promise.resolve(true) }], 60_000);
  t.teardown(async () => { await proxy.stop(); b.server.close(); });
  await new Promise((resolve) => a.server.close(resolve));
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await answer(proxy.port));
  t.same(answers.filter((x) => x === 'a'), [], 'a is never reached');
  t.ok(answers.filter((x) => x === 'b').length >= 3, `b answers all but the connection that found a gone (${answers.join(',')})`);
});

void t.test('resetAll cuts every open connection and lets new ones through', async (t) => {
  const held = createServer((socket) => { socket.on('error', () => undefined); });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  const proxy = await startServiceProxy([{ port: (held.address() as AddressInfo).port, isReady: () => Promise.resolve(true) }], 60_000);
  t.teardown(async () => { await proxy.stop(); held.close(); });
  const client = connect({ host: '127.0.0.1', port: proxy.port });
  const closed = new Promise<string>((resolve) => { client.on('error', (e: NodeJS.ErrnoException) => { resolve(e.code ?? 'error'); }); client.on('close', () => { resolve('closed'); }); });
  await new Promise((resolve) => client.once('connect', resolve));
  await sleep(50);
  t.equal(proxy.resetAll(), 1, 'one client connection cut');
  t.equal(await closed, 'ECONNRESET', 'the client sees a reset, as a watch cut by the network does');
});
