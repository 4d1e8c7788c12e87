// Prints every failed test of a TAP log with its diagnostic block, so the end of a CI log names what failed:
// CI keeps only the tail of a run, and a 30-minute suite's one failure is otherwise thousands of lines up. Last come
// the stderr tails the suite printed for failed real-stack files (build/run-suite.mjs): a file whose setup threw has
// no failed assertion, and its cause is only there.
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8').split('\n');
const diagLimit = 60;
const stderrLimit = 40;
let failures = 0;
for (let i = 0; i < lines.length; i++) {
  if (!/^\s*not ok \d+ /.test(lines[i])) continue;
  failures++;
  console.log(lines[i]);
  if (lines[i + 1]?.trim() !== '---') continue;
  // The YAML block after a failure ends with '...' at the same indentation as its '---'.
  const indent = lines[i + 1].indexOf('---');
  let shown = 0;
  for (let j = i + 1; j < lines.length; j++) {
    if (shown++ < diagLimit) console.log(lines[j]);
    if (lines[j].indexOf('...') === indent && lines[j].trim() === '...') break;
  }
}
console.log(failures === 0 ? 'no failed test in the log' : `${failures} failed test(s) or file(s) above`);
for (let i = 0; i < lines.length; i++) {
  if (!/^# stderr of \S+, which failed/.test(lines[i])) continue;
  let end = i + 1;
  while (end < lines.length && lines[end].startsWith('# ')) end++;
  console.log(lines[i]);
  for (const line of lines.slice(Math.max(i + 1, end - stderrLimit), end)) console.log(line);
}
