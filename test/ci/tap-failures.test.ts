// The end of a CI log must name what failed, and why, in its last lines: .ci/tap-failures.mjs reads the suite's log.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

function failuresOf(log: string): string[] {
  const file = join(mkdtempSync(join(tmpdir(), 'tap-failures-')), 'suite.log');
  writeFileSync(file, log);
  return execFileSync(process.execPath, ['.ci/tap-failures.mjs', file], { encoding: 'utf8' }).trimEnd().split('\n');
}

void t.test('a file whose setup threw is named with the stderr the suite kept for it, last, where a short tail shows it', (t) => {
  const out = failuresOf([
    'ok 1 - test/domain/a.test.ts # time=5ms',
    'not ok 2 - test/e2e/kueue.test.ts # time=30723ms',
    '  ---',
    '  exitCode: 1',
    '  ...',
    '# time per test file, slowest first (2 files, 31 s in files, 31 s wall)',
    '#    30.7 s  FAILED test/e2e/kueue.test.ts',
    '',
    '# stderr of test/e2e/kueue.test.ts, which failed (its last 2 lines)',
    "# Error: applying Kueue's objects failed: connection refused",
    '#     at apply (test/stack/kueue.ts:116:33)',
    '',
  ].join('\n'));
  t.same(out, [
    'not ok 2 - test/e2e/kueue.test.ts # time=30723ms',
    '  ---',
    '  exitCode: 1',
    '  ...',
    '1 failed test(s) or file(s) above',
    '# stderr of test/e2e/kueue.test.ts, which failed (its last 2 lines)',
    "# Error: applying Kueue's objects failed: connection refused",
    '#     at apply (test/stack/kueue.ts:116:33)',
  ]);
  t.end();
});

void t.test('a log with no failure says so', (t) => {
  t.same(failuresOf('ok 1 - test/domain/a.test.ts # time=5ms\n'), ['no failed test in the log']);
  t.end();
});
