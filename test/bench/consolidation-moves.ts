// Where a scale-down's disruptions come from, read off the Events nodesmith leaves (issue 37 item 8): one line per
// command (what it removed, how many pods it moved, what it launched), and the two ways moves are wasted: a pod
// moved again after it was moved once, and a replacement node a later command removed.
import type * as k8s from '@kubernetes/client-node';

export interface CommandMoves {
  readonly id: string;
  readonly atMs: number;
  readonly reason: string;
  readonly nodes: readonly string[];
  readonly replacements: readonly string[];
  readonly explanation: string;
  /** Pods the command's candidates held (its `Disrupted` Events). */
  readonly pods: number;
  /** Of those, pods that were already the new copy of a pod an earlier command moved. */
  readonly movedAgain: number;
  /** Of its candidates, nodes an earlier command launched as its replacement. */
  readonly replacementsRemoved: number;
}

export interface MovesSummary {
  readonly commands: readonly CommandMoves[];
  readonly podsDisrupted: number;
  readonly podsMovedAgain: number;
  readonly replacementsLaunched: number;
  readonly replacementsRemoved: number;
}

// "disrupting node: Underutilized, command underutilized-7, replaced by n1, n2: replace a (…) with one …"
const nodeMessage = /^disrupting node: (\S+), command (\S+), (?:no replacement needed|replaced by ([^:]+)): (.*)$/;
// "node n1 is being disrupted (Underutilized, command underutilized-7); kube-scheduler places this pod again, …"
const podMessage = /is being disrupted \((\S+), command ([^)]+)\)/;

function eventMs(e: k8s.CoreV1Event): number {
  const at = e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return at === undefined ? Number.NaN : new Date(at).getTime();
}

/**
 * The commands of a scale-down from nodesmith's `DisruptionTerminating` Events on Nodes and `Disrupted` Events on
 * pods. `podsBefore`: the pods alive once the scale-down settled; any other pod a command disrupts is a copy made
 * after an earlier move, so the same replica moved twice.
 */
export function consolidationMoves(events: readonly k8s.CoreV1Event[], podsBefore: ReadonlySet<string>): MovesSummary {
  const commands = commandsOf(events);
  for (const e of events) {
    const command = disruptedBy(e, commands);
    if (command === undefined) continue;
    command.pods += 1;
    if (!podsBefore.has(e.involvedObject.name ?? '')) command.movedAgain += 1;
  }
  const launched = new Set<string>();
  const out: CommandMoves[] = [...commands.values()].sort((a, b) => a.atMs - b.atMs).map((c) => {
    const replacementsRemoved = c.nodes.filter((n) => launched.has(n)).length;
    for (const r of c.replacements) launched.add(r);
    return { ...c, replacementsRemoved };
  });
  return {
    commands: out,
    podsDisrupted: out.reduce((s, c) => s + c.pods, 0),
    podsMovedAgain: out.reduce((s, c) => s + c.movedAgain, 0),
    replacementsLaunched: launched.size,
    replacementsRemoved: out.reduce((s, c) => s + c.replacementsRemoved, 0),
  };
}

/** A command while its Events are counted: its fields as CommandMoves has them, before the replacements are matched. */
interface Counting {
  readonly id: string;
  readonly reason: string;
  readonly replacements: readonly string[];
  readonly explanation: string;
  atMs: number;
  nodes: string[];
  pods: number;
  movedAgain: number;
}

/** One entry per command id, from its Nodes' `DisruptionTerminating` Events. */
function commandsOf(events: readonly k8s.CoreV1Event[]): Map<string, Counting> {
  const commands = new Map<string, Counting>();
  for (const e of events) {
    const m = e.reason === 'DisruptionTerminating' && e.involvedObject.kind === 'Node' ? nodeMessage.exec(e.message ?? '') : null;
    if (m === null) continue;
    const [, reason = '', id = '', replaced, explanation = ''] = m;
    const command = commands.get(id) ?? { id, atMs: eventMs(e), reason, nodes: [], replacements: replaced === undefined ? [] : replaced.split(', '), explanation, pods: 0, movedAgain: 0 };
    command.nodes.push(e.involvedObject.name ?? '');
    command.atMs = Math.min(command.atMs, eventMs(e));
    commands.set(id, command);
  }
  return commands;
}

/** The command a pod's `Disrupted` Event names, if it is one of `commands`. */
function disruptedBy(e: k8s.CoreV1Event, commands: ReadonlyMap<string, Counting>): Counting | undefined {
  if (e.reason !== 'Disrupted' || e.involvedObject.kind !== 'Pod') return undefined;
  const id = podMessage.exec(e.message ?? '')?.[2];
  return id === undefined ? undefined : commands.get(id);
}

/** The bench's lines: a summary, then one line per command with its time after `startMs`. */
export function movesLines(summary: MovesSummary, startMs: number): string {
  const head = `commands ${String(summary.commands.length)}: ${String(summary.podsDisrupted)} pods disrupted, ${String(summary.podsMovedAgain)} of them moved before; ${String(summary.replacementsLaunched)} replacements launched, ${String(summary.replacementsRemoved)} removed again by a later command\n`;
  const rows = summary.commands.map((c) => {
    const flags = [c.movedAgain > 0 ? `${String(c.movedAgain)} moved before` : '', c.replacementsRemoved > 0 ? `${String(c.replacementsRemoved)} were replacements` : ''].filter((s) => s !== '').join(', ');
    return `  t=${((c.atMs - startMs) / 1000).toFixed(0)}s ${c.id}: ${String(c.nodes.length)} nodes, ${String(c.pods)} pods${flags === '' ? '' : ` (${flags})`}; ${c.explanation}\n`;
  });
  return head + rows.join('');
}
