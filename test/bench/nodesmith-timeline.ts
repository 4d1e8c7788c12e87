import { readFileSync } from 'node:fs';

/** One line of nodesmith's JSON log (pino) that the timeline reads. */
interface LogLine { readonly time?: number; readonly msg?: string; readonly pods?: number; readonly newNodes?: number; readonly decideSeconds?: number; readonly seconds?: number; readonly instanceType?: string }

/**
 * What nodesmith did during a burst, from its own info-level log, in seconds after `startedMs`: each planning pass
 * (pods, new nodes, how long it decided) and each launch (the instance type, how long it took). Beside the bound
 * curve it tells a wait for the batch window from a slow plan or slow launches. Empty when the log is below info.
 */
export function nodesmithTimeline(logPath: string, startedMs: number): string[] {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return [];
  }
  const at = (line: LogLine): string => `t=${(((line.time ?? startedMs) - startedMs) / 1000).toFixed(1)}s`;
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.startsWith('{')) continue;
    let line: LogLine;
    try {
      line = JSON.parse(raw) as LogLine;
    } catch {
      continue;
    }
    if ((line.time ?? 0) < startedMs) continue;
    if (line.msg === 'planned pending pods') out.push(`${at(line)} planned ${String(line.pods)} pods onto ${String(line.newNodes)} new nodes (decided in ${String(line.decideSeconds)} s, ${String(line.seconds)} s in all)`);
    if (line.msg === 'launched nodeclaim') out.push(`${at(line)} launched ${line.instanceType ?? '?'} in ${String(line.seconds)} s`);
  }
  return out;
}
