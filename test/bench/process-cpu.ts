import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in these ticks on every mainstream kernel. */
const ticksPerSecond = 100;

export interface CpuTime { readonly user: number; readonly system: number }

/** User and system CPU milliseconds a process has used so far, from /proc/<pid>/stat; zero once it is gone. */
export function processCpuMs(pid: number): CpuTime {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the numeric fields start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the state field.
    return { user: (Number(fields[11]) * 1000) / ticksPerSecond, system: (Number(fields[12]) * 1000) / ticksPerSecond };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** CPU time used by each named process between two readings. */
export class CpuMeter {
  readonly #pids: ReadonlyMap<string, number>;

  constructor(pids: ReadonlyMap<string, number>) {
    this.#pids = pids;
  }

  reading(): Map<string, CpuTime> {
    return new Map([...this.#pids].map(([name, pid]) => [name, processCpuMs(pid)]));
  }

  since(start: ReadonlyMap<string, CpuTime>): Map<string, CpuTime> {
    const now = this.reading();
    return new Map([...now].map(([name, t]) => {
      const before = start.get(name) ?? { user: 0, system: 0 };
      return [name, { user: t.user - before.user, system: t.system - before.system }];
    }));
  }
}
