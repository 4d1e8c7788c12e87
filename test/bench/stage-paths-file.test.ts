import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStagePaths } from './stage-paths-file.js';

void t.test('each burst writes its own file of pod paths, in creation order', (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'paths-')), 'nested');
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
  const late = { createdMs: 2_000, stages: { created: 2_000, bound: 5_000 } };
  const early = { createdMs: 1_000, stages: { created: 1_000, filter: 1_200, bound: undefined } };
  const first = writeStagePaths(dir, 'nodesmith', 900, [late, early]);
  const second = writeStagePaths(dir, 'karpenter', 950, [early]);
  t.equal(first, join(dir, 'nodesmith-900.json'), 'named by side and start');
  t.not(first, second, 'the other side of the race does not overwrite it');
  const written = JSON.parse(readFileSync(first, 'utf8')) as { controller: string; startedMs: number; pods: { createdMs: number; stages: Record<string, number> }[] };
  t.equal(written.controller, 'nodesmith');
  t.equal(written.startedMs, 900);
  t.same(written.pods.map((p) => p.createdMs), [1_000, 2_000], 'sorted by creation whatever order the paths came in');
  t.same(written.pods[0]?.stages, { created: 1_000, filter: 1_200 }, 'a stage never reached is left out');
  t.end();
});
