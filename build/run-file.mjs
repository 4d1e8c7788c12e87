// Runs one test file as a child of `npm test`, the way tap's runner would, without the two module hooks tap's runner
// adds to every test process (issue 36). tap starts each file with `--import` of @tapjs/processinfo (a record of every
// module loaded, for `tap --changed` and coverage) and of @tapjs/mock, and passes processinfo on in NODE_OPTIONS to
// every node process a test starts. On Node 22 both run as module hooks on a thread of their own that every import
// crosses: measured on one provisioning unit file, 0.95 CPU-s alone, 1.81 with processinfo's hook, 1.20 with mock's;
// 40 unit files, two at a time, took 61.6 CPU-s under tap's runner and 38.6 run so (DECISIONS.md, "The suite runs its
// files itself"). The suite takes no coverage and no test mocks a module, so neither hook does anything it needs.
//
// What the runner gave each file is given here: tap's `node-arg` and `timeout` from package.json, `TAP=1` (the test
// prints plain TAP), and the file's output as an indented subtest of the merged stream with its result line. Whether
// the file passed is read by tap's own parser from what it printed, and from how the process ended.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { createInterface } from 'node:readline';
import { Parser } from 'tap-parser';

const tapConfig = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).tap;
const nodeArgs = tapConfig['node-arg'] ?? [];
const timeoutSeconds = Number(tapConfig.timeout ?? 30);
/** How many files tap ran at once (its `jobs`): the suite runs the other files so many at a time too. */
export const tapJobs = Number(tapConfig.jobs ?? 2);
/** A file past its timeout fails itself (tap's TAP object) and kills itself 10 s later; this is the backstop. */
const killAfterMs = (timeoutSeconds + 30) * 1000;

/** The root counts a test process prints last: `# { total: 6, pass: 6 }`. */
const countLine = /^# \{.*\}$/;

/**
 * Runs `file` and resolves to its exit code (1 when tap's parser found it not ok, though it exited 0). `onLine` gets
 * the lines tap's runner would print for it: `# Subtest: file`, the file's TAP indented, its `ok`/`not ok` line with
 * its time, and its counts. `onErrorLine` gets its stderr line by line (inherited when absent). `niceness` lowers its
 * CPU priority and that of every process it starts.
 */
export function runTestFile(file, { onLine, onErrorLine = undefined, niceness = 0 }) {
  const started = Date.now();
  // Nothing of a tap run this one may run under (its child id silences the counts; its NODE_OPTIONS load its hooks).
  const inherited = Object.entries(process.env).filter(([k, v]) => !k.startsWith('TAP') && !(k === 'NODE_OPTIONS' && v?.includes('@tapjs/') === true));
  const env = { ...Object.fromEntries(inherited), TAP: '1', TAP_TIMEOUT: String(timeoutSeconds), TAP_DISABLE_COVERAGE: '1', TAP_BAIL: '0' };
  const child = spawn(process.execPath, [...nodeArgs, file], { env, stdio: ['ignore', 'pipe', onErrorLine === undefined ? 'inherit' : 'pipe'] });
  if (niceness !== 0 && child.pid !== undefined) setPriority(child.pid, niceness);
  const parser = new Parser();
  let results;
  parser.on('complete', (r) => { results = r; });
  let counts;
  onLine(`# Subtest: ${file}`);
  createInterface({ input: child.stdout }).on('line', (text) => {
    parser.write(`${text}\n`);
    if (countLine.test(text)) counts = text;
    else if (!text.startsWith('TAP version')) onLine(text === '' ? '' : `    ${text}`);
  });
  if (onErrorLine !== undefined) createInterface({ input: child.stderr }).on('line', onErrorLine);
  let killed = false;
  const backstop = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, killAfterMs);
  return new Promise((resolve) => {
    child.on('close', (exitCode, signal) => {
      clearTimeout(backstop);
      parser.end();
      const code = exitCodeOf(exitCode, results?.ok === true);
      onLine(`${code === 0 ? 'ok' : 'not ok'} 1 - ${file} # time=${String(Date.now() - started)}ms`);
      if (code !== 0) {
        const why = killed ? `killed ${String(killAfterMs / 1000)} s after it started` : `${String(results?.fail ?? 0)} failed`;
        for (const text of ['  ---', `  exitCode: ${String(exitCode)}`, `  signal: ${String(signal)}`, `  reason: ${why}`, '  ...']) onLine(text);
      }
      if (counts !== undefined) onLine(counts);
      resolve(code);
    });
  });
}

/** 0 when the process exited 0 and its TAP was ok; else its own exit code, or 1 (killed, or not ok though it exited 0). */
function exitCodeOf(exitCode, tapOk) {
  if (exitCode === 0) return tapOk ? 0 : 1;
  return exitCode ?? 1;
}
