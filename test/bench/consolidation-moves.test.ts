import t from 'tap';
import type * as k8s from '@kubernetes/client-node';
import { consolidationMoves, movesLines } from './consolidation-moves.js';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();

function nodeEvent([node, id, s]: [string, string, number], replaced: string[], explanation: string): k8s.CoreV1Event {
  const how = replaced.length === 0 ? 'no replacement needed' : `replaced by ${replaced.join(', ')}`;
  return { metadata: {}, involvedObject: { kind: 'Node', name: node }, reason: 'DisruptionTerminating', eventTime: at(s) as unknown as Date, message: `disrupting node: Underutilized, command ${id}, ${how}: ${explanation}` };
}

function podEvent(pod: string, node: string, id: string): k8s.CoreV1Event {
  return { metadata: {}, involvedObject: { kind: 'Pod', name: pod }, reason: 'Disrupted', message: `node ${node} is being disrupted (Underutilized, command ${id}); kube-scheduler places this pod again, no replacement needed` };
}

void t.test('a replica moved twice and a replacement removed by a later command are both counted, per command and in all', (t) => {
  const events = [
    nodeEvent(['n2', 'underutilized-2', 30], [], 'delete n2 ($0.1/h): its pod fits on other nodes; saves $0.1/h'),
    podEvent('web-b', 'n2', 'underutilized-2'),
    podEvent('web-c2', 'n2', 'underutilized-2'),
    nodeEvent(['n1', 'underutilized-1', 10], ['r1'], 'replace n1 ($1/h) with one on-demand c6g.large at $0.1/h; saves $0.9/h'),
    podEvent('web-a', 'n1', 'underutilized-1'),
    podEvent('web-c', 'n1', 'underutilized-1'),
    nodeEvent(['r1', 'underutilized-3', 50], [], 'delete r1'),
    podEvent('web-a2', 'r1', 'underutilized-3'),
    // Another reason's Events on the same objects are not consolidation's moves.
    { metadata: {}, involvedObject: { kind: 'Pod', name: 'web-a' }, reason: 'Scheduled', message: 'bound' },
  ];
  const summary = consolidationMoves(events, new Set(['web-a', 'web-b', 'web-c']));
  t.same(summary.commands.map((c) => c.id), ['underutilized-1', 'underutilized-2', 'underutilized-3'], 'commands in the order they ran, not the order listed');
  t.same(summary.commands.map((c) => c.pods), [2, 2, 1]);
  t.same(summary.commands.map((c) => c.movedAgain), [0, 1, 1], 'web-c2 and web-a2 are copies of pods moved before');
  t.same(summary.commands.map((c) => c.replacementsRemoved), [0, 0, 1], 'r1 was launched by the first command');
  t.match(summary, { podsDisrupted: 5, podsMovedAgain: 2, replacementsLaunched: 1, replacementsRemoved: 1 });
  const lines = movesLines(summary, Date.parse(at(0)));
  t.match(lines, /^commands 3: 5 pods disrupted, 2 of them moved before; 1 replacements launched, 1 removed again/);
  t.match(lines, /t=50s underutilized-3: 1 nodes, 1 pods \(1 moved before, 1 were replacements\); delete r1/);
  t.end();
});

void t.test('Events of another shape are left out rather than guessed at', (t) => {
  const summary = consolidationMoves([
    { metadata: {}, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'DisruptionTerminating', message: 'something else' },
    podEvent('web-a', 'n1', 'no-such-command'),
  ], new Set());
  t.same(summary.commands, []);
  t.equal(summary.podsDisrupted, 0);
  t.end();
});
