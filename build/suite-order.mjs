// Which test files start a real stack, and in what order they run: slowest first, from their last measured times.
// The suite's wall time is that of its longest chain of real-stack files; started first, the longest files overlap
// all the others instead of being the tail that runs alone at the end (longest-processing-time-first scheduling).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** A file that starts kube-apiserver, etcd, kwok and moto of its own (README: "Real-stack tests"). */
export const startsAStack = (file) => file.startsWith('test/e2e/') || file.startsWith('test/stack/');

// The committed times (seconds, from one full `npm test` on the 2-core machine, shared with other work, so longer
// than alone; only their order matters) order a fresh clone's first run; each run then writes what it measured to
// .tap/, and the next run on that checkout orders by those.
const committed = new URL('./suite-times.json', import.meta.url);
const measured = new URL('../.tap/suite-times.json', import.meta.url);

/** A file never measured goes before every file but the slowest: a new real-stack file is rarely short. */
const unknownSeconds = 200;

function readTimes(url) {
  try {
    return JSON.parse(readFileSync(url, 'utf8'));
  } catch {
    return {};
  }
}

/** The files, slowest first by their last known time. */
export function slowestFirst(files) {
  const times = { ...readTimes(committed), ...readTimes(measured) };
  const seconds = (f) => (typeof times[f] === 'number' ? times[f] : unknownSeconds);
  return [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

/** Keeps this run's times (seconds) of the files that passed, for the next run's order. */
export function rememberTimes(results) {
  const times = readTimes(measured);
  for (const r of results) if (r.ok) times[r.file] = Math.round(r.ms / 1000);
  mkdirSync(dirname(measured.pathname), { recursive: true });
  writeFileSync(measured, `${JSON.stringify(times, null, 2)}\n`);
}
