// Runs the suite, then prints every test file's time, slowest first (issue 36): which files to speed up is read from
// that table, not guessed. Exits non-zero when any file failed.
//
// Without real-stack files (test:unit, coverage) it is one tap run, its output passed through unchanged: coverage
// needs tap's runner. With them (npm test), tap alone would run the files in name order, two at a time, and the
// slowest real-stack files (test/e2e/takeover is 6 minutes) would start whenever their name came up. Instead, each
// file runs as a process started here (build/run-file.mjs), its output merged into one TAP stream (tap-merge.mjs):
// - the other files two at a time, at a lower priority (they are short and busy: each is mostly node starting);
// - beside them, the real-stack files slowest first, several at once: they mostly wait for controllers' periods, so
//   more of them than cores fit, and started first the longest overlap the rest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { rememberTimes, slowestFirst, startsAStack } from './suite-order.mjs';
import { runTestFile, tapJobs as otherJobs } from './run-file.mjs';
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

/** Runs tap with these arguments; `onLine` gets each line of its stdout. Resolves to its exit code. */
function tap(tapArgs, onLine) {
  const child = spawn(process.execPath, [tapBin, ...tapArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout }).on('line', onLine);
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

/**
 * The other files two at a time and the real-stack files slowest first, `jobs` at a time, merged into one stream.
 * Each file runs as a process of its own started here (build/run-file.mjs), not by tap's runner: the suite takes no
 * coverage (`npm run coverage` does, the unit files alone, through tap), and tap's runner adds two module hooks to
 * every test process that cost about a third of the unit files' CPU.
 */
async function splitRuns(files, jobs) {
  const merge = new TapMerge((text) => process.stdout.write(text));
  /** The stderr tails of the real-stack files that failed, printed again last (see StderrTail). */
  const failedStderr = [];
  /** Runs the queue's files one after another; resolves to their exit codes. */
  const lane = async (queue, niceness, keepStderr) => {
    const codes = [];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const reader = merge.run();
      const stderr = keepStderr ? new StderrTail() : undefined;
      const code = await runTestFile(file, { onLine: reader.line, onErrorLine: stderr?.line, niceness }).finally(reader.close);
      if (code !== 0 && stderr !== undefined) failedStderr.push({ file, lines: stderr.lines });
      codes.push(code);
    }
    return codes;
  };
  const stacks = slowestFirst(files.filter(startsAStack));
  const others = files.filter((f) => !startsAStack(f));
  // When each lane ended, printed with the table: the wall time is the last lane's, and a lane that ends long after
  // the others (a long file started late, or the niced files starved) is what to mend next, not the files' sum.
  const ended = { others: [], stacks: [] };
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const codes = await Promise.all([
    // The other files keep the CPU busy (each is a node process starting); at a lower priority they take what the
    // stacks leave, so a controller's pass on a stack is not late behind them: they finish long before the stacks.
    ...Array.from({ length: otherJobs }, () => lane(others, otherFilesNiceness, false).then((c) => { ended.others.push(seconds()); return c; })),
    ...Array.from({ length: jobs }, () => lane(stacks, 0, true).then((c) => { ended.stacks.push(seconds()); return c; })),
  ]);
  merge.end();
  rememberTimes(merge.files.filter((f) => startsAStack(f.file)));
  printTimes(merge.files);
  process.stdout.write(`# the real-stack lanes ended at ${ended.stacks.map(String).join(', ')} s; the other files' at ${ended.others.map(String).join(', ')} s\n`);
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
