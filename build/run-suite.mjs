// Runs tap with the given arguments, its output passed through unchanged, then prints every test file's time,
// slowest first: the suite's length is the real-stack files', and which of them to share a stack or stop sleeping
// is read from this table (issue 36), not guessed. Exits with tap's own code.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const tapBin = fileURLToPath(new URL('../node_modules/tap/dist/esm/run.mjs', import.meta.url));
const started = Date.now();
const child = spawn(process.execPath, [tapBin, ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'] });
/** Top-level results only: a file's line is `ok 12 - test/x.test.ts # time=1234.5ms`, unindented. */
const fileLine = /^(not ok|ok) \d+ - (\S+) # time=([\d.]+)ms/;
const files = [];
createInterface({ input: child.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  const m = fileLine.exec(line);
  if (m !== null) files.push({ file: m[2], ms: Number(m[3]), ok: m[1] === 'ok' });
});
child.on('close', (code, signal) => {
  files.sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  const wall = (Date.now() - started) / 1000;
  process.stdout.write(`\n# time per test file, slowest first (${files.length} files, ${(total / 1000).toFixed(0)} s in files, ${wall.toFixed(0)} s wall)\n`);
  for (const f of files) process.stdout.write(`# ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.ok ? '' : 'FAILED '}${f.file}\n`);
  process.exit(code ?? (signal === null ? 1 : 128));
});
