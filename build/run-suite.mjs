// Runs the suite with tap, then prints every test file's time, slowest first (issue 36): which files to speed up is
// read from that table, not guessed. Exits non-zero when any file failed.
//
// Without real-stack files (test:unit, coverage) it is one tap run, its output passed through unchanged. With them
// (npm test), tap alone would run the files in name order, two at a time, and the slowest real-stack files
// (test/e2e/takeover is 7 minutes) would start whenever their name came up. Instead:
// - the other files run as one tap run, two at a time (they are short and busy: each is mostly node starting);
// - beside it, the real-stack files run slowest first, each in a tap run of its own, several at once: they mostly
//   wait for controllers' periods, so more of them than cores fit, and started first the longest overlap the rest.
// tap sorts the files of one run by name, so an order needs a run per file; each such run passes its file as a
// --save list, which also keeps it from clearing .tap/processinfo under the runs beside it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { rememberTimes, slowestFirst, startsAStack } from './suite-order.mjs';
import { TapMerge } from './tap-merge.mjs';

const tapBin = fileURLToPath(new URL('../node_modules/tap/dist/esm/run.mjs', import.meta.url));
const started = Date.now();
const stackJobsFlag = '--stack-jobs=';
/** Our own flag; every other argument is tap's. */
const args = process.argv.slice(2).filter((a) => !a.startsWith(stackJobsFlag));

/**
 * How many real-stack files run at once (`--stack-jobs=N`, default 4). Each starts its own stack and mostly waits
 * (one such file, sampled from ps: about a fifth of a core): four on the 2-core machine stayed green and finished sooner than
 * three (DECISIONS.md, "The suite's order and jobs").
 */
function stackJobs() {
  const text = process.argv.slice(2).findLast((a) => a.startsWith(stackJobsFlag))?.slice(stackJobsFlag.length) ?? '4';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${stackJobsFlag}N must be a whole number of 1 or more, not "${text}"`);
  return n;
}

/**
 * A real-stack file's stderr, passed through as it comes and its last lines kept. A file whose top-level setup
 * throws (a component that did not start) fails with no failed assertion: its cause is only on stderr, thousands of
 * lines up in a CI log that keeps the tail, so the suite prints it again at the end.
 */
class StderrTail {
  static keep = 120;
  lines = [];
  line = (text) => {
    process.stderr.write(`${text}\n`);
    this.lines.push(text);
    if (this.lines.length > StderrTail.keep) this.lines.shift();
  };
}

/** The other files' CPU priority below the stacks' (see splitRuns). */
const otherFilesNiceness = 5;

/**
 * Runs tap with these arguments; `onLine` gets each line of its stdout. Resolves to its exit code. `niceness` lowers
 * its CPU priority, and that of every test process it starts after (they inherit it).
 */
function tap(tapArgs, onLine, niceness = 0, onErrorLine = undefined) {
  const child = spawn(process.execPath, [tapBin, ...tapArgs], { stdio: ['ignore', 'pipe', onErrorLine === undefined ? 'inherit' : 'pipe'] });
  if (niceness !== 0 && child.pid !== undefined) setPriority(child.pid, niceness);
  createInterface({ input: child.stdout }).on('line', onLine);
  if (onErrorLine !== undefined) createInterface({ input: child.stderr }).on('line', onErrorLine);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128))));
}

/** The files tap would run with these arguments, as it selects them (include, exclude, positional paths). */
async function listFiles() {
  const files = [];
  const code = await tap(['list', ...args], (line) => { if (line.trim() !== '') files.push(line.trim()); });
  if (code !== 0) throw new Error(`tap list ${args.join(' ')} exited ${String(code)}`);
  return files;
}

function printTimes(files) {
  const sorted = [...files].sort((a, b) => b.ms - a.ms);
  const total = sorted.reduce((sum, f) => sum + f.ms, 0);
  const wall = (Date.now() - started) / 1000;
  process.stdout.write(`\n# time per test file, slowest first (${String(sorted.length)} files, ${(total / 1000).toFixed(0)} s in files, ${wall.toFixed(0)} s wall)\n`);
  for (const f of sorted) process.stdout.write(`# ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.ok ? '' : 'FAILED '}${f.file}\n`);
}

/** One tap run, as before the split: its output unchanged, the table after it. */
async function oneRun() {
  const fileLine = /^(not ok|ok) \d+ - (\S+) # time=([\d.]+)ms/;
  const files = [];
  const code = await tap(args, (line) => {
    process.stdout.write(`${line}\n`);
    const m = fileLine.exec(line);
    if (m !== null) files.push({ file: m[2], ms: Number(m[3]), ok: m[1] === 'ok' });
  });
  printTimes(files);
  return code;
}

/** The other files in one run and the real-stack files slowest first, `jobs` at a time, merged into one stream. */
async function splitRuns(files, jobs) {
  const options = args.filter((a) => a.startsWith('-'));
  // No coverage in the whole suite: it is `npm run coverage`'s (the unit files alone, one run). Taken here it cost
  // a fifth of the unit files' CPU, and the suite is CPU-bound on the 2-core machine (DECISIONS.md).
  const common = ['--reporter=tap', '--disable-coverage', ...options];
  const merge = new TapMerge((text) => process.stdout.write(text));
  const runOf = (tapArgs, niceness = 0, tail = 'keep', onErrorLine = undefined) => {
    const reader = merge.run(tail);
    return tap(tapArgs, reader.line, niceness, onErrorLine).finally(reader.close);
  };
  /** The stderr tails of the real-stack files that failed, printed again last (see StderrTail). */
  const failedStderr = [];
  const queue = slowestFirst(files.filter(startsAStack));
  const others = files.filter((f) => !startsAStack(f));
  const saves = mkdtempSync(join(tmpdir(), 'nodesmith-suite-'));
  const stackWorker = async () => {
    const codes = [];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const save = join(saves, `${String(codes.length)}-${file.replaceAll('/', '_')}`);
      writeFileSync(save, `${file}\n`);
      // tap still reports what it finds in .tap/coverage after the file (another run's data): that tail is dropped.
      const stderr = new StderrTail();
      const code = await runOf([...common, '--jobs=1', `--save=${save}`, file], 0, 'drop', stderr.line);
      if (code !== 0) failedStderr.push({ file, lines: stderr.lines });
      codes.push(code);
    }
    return codes;
  };
  // When each lane ended, printed with the table: the wall time is the last lane's, and a lane that ends long after
  // the others (a long file started late, or the niced run starved) is what to mend next, not the files' sum.
  const ended = { others: 0, stacks: [] };
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const codes = await Promise.all([
    // The other files keep the CPU busy (each is a node process starting); at a lower priority they take what the
    // stacks leave, so a controller's pass on a stack is not late behind them: they finish long before the stacks.
    others.length === 0 ? [] : runOf([...common, ...others], otherFilesNiceness).then((c) => { ended.others = seconds(); return [c]; }),
    ...Array.from({ length: jobs }, () => stackWorker().then((c) => { ended.stacks.push(seconds()); return c; })),
  ]);
  rmSync(saves, { recursive: true, force: true });
  merge.end();
  rememberTimes(merge.files.filter((f) => startsAStack(f.file)));
  printTimes(merge.files);
  process.stdout.write(`# the real-stack lanes ended at ${ended.stacks.map(String).join(', ')} s; the other files' run at ${String(ended.others)} s\n`);
  for (const { file, lines } of failedStderr) {
    process.stdout.write(`\n# stderr of ${file}, which failed (its last ${String(lines.length)} lines)\n${lines.map((l) => `# ${l}`).join('\n')}\n`);
  }
  return codes.flat().find((c) => c !== 0) ?? 0;
}

try {
  const jobs = stackJobs();
  // tap builds its Test class with the configured plugins on its first run after an install (a fresh clone, CI):
  // the runs started at once below raced on that build (ENOENT copying into @tapjs/test/test-built, then
  // ERR_MODULE_NOT_FOUND in every file), and `tap list` needs it too, so it is built once here, alone, first.
  const built = await tap(['build'], () => undefined);
  if (built !== 0) throw new Error(`tap build exited ${String(built)}`);
  const files = await listFiles();
  process.exit(files.some(startsAStack) ? await splitRuns(files, jobs) : await oneRun());
} catch (error) {
  process.stderr.write(`run-suite: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
