import t from 'tap';
import { existsSync } from 'node:fs';
import { startMoto } from '../moto.js';

function alive(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/moto-api/`, { signal: AbortSignal.timeout(1_000) }).then(
    async (r) => {
      await r.body?.cancel();
      return true;
    },
    () => false,
  );
}

void t.test(
  'startMoto answers on loopback, logs to a file and stop leaves nothing running',
  async (t) => {
    const moto = await startMoto({ region: 'eu-west-1' });
    t.teardown(() => moto.stop());
    t.match(moto.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.equal(moto.region, 'eu-west-1');
    t.ok(await alive(moto.port));
    t.ok(existsSync(moto.logPath));
    await moto.stop();
    t.notOk(await alive(moto.port), 'the port no longer answers');
    await moto.stop();
    t.pass('a second stop is harmless');
  },
);

void t.test('a missing virtualenv fails fast with the log tail', async (t) => {
  await t.rejects(startMoto({ venv: '/nonexistent-venv', readyTimeoutMs: 2_000 }), /starting moto/);
});
