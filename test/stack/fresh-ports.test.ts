import t from 'tap';
import { onFreshPorts } from './fresh-ports.js';

const taken = new Error('etcd exited with 1 before it was ready\n{"msg":"discovery failed","error":"listen tcp 127.0.0.1:35065: bind: address already in use"}');

void t.test('a component that lost its port to another process is started again on new ports', async (t) => {
  const tries: number[] = [];
  const url = await onFreshPorts('etcd', (n) => { tries.push(n); return n === 1 ? Promise.reject(taken) : Promise.resolve(`started on try ${String(n)}`); });
  t.equal(url, 'started on try 2');
  t.same(tries, [1, 2]);
});

void t.test('any other failure, or a third lost port, is thrown', async (t) => {
  await t.rejects(onFreshPorts('etcd', () => Promise.reject(new Error('etcd exited with 1 before it was ready\nbad flag'))), /bad flag/);
  let n = 0;
  await t.rejects(onFreshPorts('etcd', () => { n++; return Promise.reject(taken); }), /address already in use/);
  t.equal(n, 3);
});

void t.test('the lost port must be the named component\'s: Kueue is started again on its own, not on an etcd failure', async (t) => {
  const kueueTaken = new Error('kueue exited with 1 before it was ready\n{"level":"error","msg":"Could not run manager","error":"listen tcp 127.0.0.1:41233: bind: address already in use"}');
  let n = 0;
  t.equal(await onFreshPorts('kueue', () => (++n === 1 ? Promise.reject(kueueTaken) : Promise.resolve('ready'))), 'ready');
  t.equal(n, 2, 'Kueue got a second start');
  await t.rejects(onFreshPorts('kueue', () => Promise.reject(taken)), /etcd exited/, "etcd's lost port is not Kueue's to retry");
});
