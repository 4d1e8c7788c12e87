// The per-pod paths behind a burst's timeline, kept as a file (`--paths-dir`): the table says which stage is slow,
// the paths say which pods and when (a burst's tail is a handful of pods that failed early, which medians hide).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PodStages } from './stage-timeline.js';

/**
 * Writes each pod's path as JSON (epoch ms per stage, sorted by creation) to `<dir>/<controller>-<startedMs>.json`
 * and returns the file's path. One file per burst: the rounds of a race and its two sides never overwrite each other.
 */
export function writeStagePaths(dir: string, controller: string, startedMs: number, paths: readonly PodStages[]): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${controller}-${String(startedMs)}.json`);
  const sorted = [...paths].sort((a, b) => a.createdMs - b.createdMs);
  writeFileSync(file, `${JSON.stringify({ controller, startedMs, pods: sorted }, null, 1)}\n`);
  return file;
}
