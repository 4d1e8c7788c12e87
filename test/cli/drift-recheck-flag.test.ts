import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('--drift-recheck-interval defaults to Karpenter\'s 5 minutes and takes a duration', (t) => {
  const parsed = parseRunFlags(['--cluster-name=c'], {});
  t.equal(Array.isArray(parsed) ? undefined : parsed.driftRecheckMs, 300_000);
  const short = parseRunFlags(['--cluster-name=c', '--drift-recheck-interval=20s'], {});
  t.equal(Array.isArray(short) ? undefined : short.driftRecheckMs, 20_000);
  t.same(parseRunFlags(['--cluster-name=c', '--drift-recheck-interval=often'], {}), ['--drift-recheck-interval must be a duration like 500ms, 1s or 2m; got "often"']);
  t.end();
});
