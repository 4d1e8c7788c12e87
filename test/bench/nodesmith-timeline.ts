import { readFileSync } from 'node:fs';
import { nodesmithColumns, nodesmithLogTimes, nodesmithPaths, timelineReport } from './stage-paths.js';
import type { StageWatch } from './stage-watch.js';
import type { PodStages } from './stage-timeline.js';

/** One line of nodesmith's JSON log (pino), with the fields the benches read. */
export interface LogLine {
  readonly time?: number; readonly msg?: string; readonly pods?: number; readonly newNodes?: number; readonly decideSeconds?: number; readonly seconds?: number; readonly instanceType?: string;
  readonly nodeClaim?: string;
  /** fastify's 'request completed': the reply (the extender adds the pod, and for a bind the node) and its ms. */
  readonly res?: { readonly statusCode?: number; readonly pod?: string; readonly node?: string };
  readonly responseTime?: number;
}

/** The JSON lines of nodesmith's log, skipping what is not JSON (Node's own warnings); none if there is no log. */
export function readLogLines(logPath: string): LogLine[] {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((raw) => {
    if (!raw.startsWith('{')) return [];
    try {
      return [JSON.parse(raw) as LogLine];
    } catch {
      return [];
    }
  });
}

/**
 * What nodesmith did during a burst, from its own info-level log, in seconds after `startedMs`: each planning pass
 * (pods, new nodes, how long it decided) and each launch (the instance type, how long it took). Beside the bound
 * curve it tells a wait for the batch window from a slow plan or slow launches. Empty when the log is below info.
 */
export function nodesmithTimeline(logPath: string, startedMs: number): string[] {
  const at = (line: LogLine): string => `t=${(((line.time ?? startedMs) - startedMs) / 1000).toFixed(1)}s`;
  const out: string[] = [];
  for (const line of readLogLines(logPath)) {
    if ((line.time ?? 0) < startedMs) continue;
    if (line.msg === 'planned pending pods') out.push(`${at(line)} planned ${String(line.pods)} pods onto ${String(line.newNodes)} new nodes (decided in ${String(line.decideSeconds)} s, ${String(line.seconds)} s in all)`);
    if (line.msg === 'launched nodeclaim') out.push(`${at(line)} launched ${line.instanceType ?? '?'} in ${String(line.seconds)} s`);
  }
  return out;
}

/** Where every second of a burst went, per pod and stage, from the bench's watch and nodesmith's log (docs/benchmarks.md). */
export function nodesmithStages(watch: StageWatch, logPath: string, startedMs: number, title = 'timeline per stage, seconds after each pod was created:'): string {
  return timelineReport(title, watch, nodesmithStagePaths(watch, logPath, startedMs), nodesmithColumns);
}

/** Each pod's path through nodesmith's stages, from the bench's watch and nodesmith's log. */
export function nodesmithStagePaths(watch: StageWatch, logPath: string, startedMs: number): PodStages[] {
  return nodesmithPaths(watch, nodesmithLogTimes(readLogLines(logPath), startedMs));
}
