import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodesmithTimeline } from './nodesmith-timeline.js';

void t.test('the timeline lists plans and launches after the start, in seconds from it, and skips what is not JSON', (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'timeline-')), 'nodesmith.log');
  writeFileSync(path, [
    JSON.stringify({ time: 500, msg: 'planned pending pods', pods: 3, newNodes: 1, decideSeconds: 0.01, seconds: 0.02 }),
    'not json',
    JSON.stringify({ time: 9_600, msg: 'planned pending pods', pods: 1000, newNodes: 16, decideSeconds: 0.11, seconds: 0.3 }),
    JSON.stringify({ time: 10_400, msg: 'launched nodeclaim', instanceType: 'c6g.12xlarge', seconds: 0.7 }),
    JSON.stringify({ time: 10_500, msg: 'started leading' }),
  ].join('\n'));
  t.same(nodesmithTimeline(path, 1_000), ['t=8.6s planned 1000 pods onto 16 new nodes (decided in 0.11 s, 0.3 s in all)', 't=9.4s launched c6g.12xlarge in 0.7 s']);
  t.same(nodesmithTimeline(join(path, 'missing'), 0), []);
  t.end();
});
