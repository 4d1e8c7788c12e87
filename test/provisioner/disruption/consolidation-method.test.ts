import t from 'tap';
import { ConsolidationMethod, consolidatedTtlMs, type ConsolidationMethodDeps } from '../../../provisioner/disruption/consolidation-method.js';
import { DisruptionEvents } from '../../../provisioner/disruption/disruption-events.js';
import { candidate, cluster, launched, methodContext, pool, priceOf, types, type Launched } from './consolidation-fixtures.js';

const minute = 60_000;
const now = 100 * minute;

function deps(options: Partial<ConsolidationMethodDeps['options']> = {}): ConsolidationMethodDeps {
  return { clock: { now: () => now, sleep: () => Promise.resolve() }, priceOf, instanceTypes: () => types, unavailableOfferings: () => new Set(), options: { spotToSpot: false, ...options } };
}

function setup(nodes: Launched[], pools = [pool()]): { state: ReturnType<typeof cluster>; candidates: ReturnType<typeof candidate>[] } {
  const state = cluster(nodes, pools);
  return { state, candidates: nodes.map((n) => candidate(state, n)) };
}

void t.test('single-node consolidation deletes a node whose pods fit elsewhere, as one Underutilized command', async (t) => {
  const { state, candidates } = setup([launched('spare', 'm5.xlarge', ['500m']), launched('host', 'm5.xlarge', ['1', '1'])]);
  const method = new ConsolidationMethod('single', deps());
  const context = methodContext(state, now);
  const [command, ...rest] = await method.computeCommands(candidates, context);
  t.equal(rest.length, 0);
  t.equal(command?.reason, 'Underutilized');
  t.equal(command?.consolidationType, 'single');
  t.same(command?.candidates.map((c) => c.nodeName), ['spare']);
  t.same(command?.replacements, []);
  t.equal(command?.savingsPerHour, priceOf('m5.xlarge', 'us-east-1a', 'on-demand'));
  t.match(command?.explanation, /^delete spare \(\$0\.1920\/h\): its pod fits on other nodes/);
  t.ok(context.pauses >= 1, 'the search yielded to the event loop');
  t.equal(await method.validate(command ?? (t.fail('no command') as never), context), undefined, 'still valid');
});

void t.test('multi-node consolidation replaces three half-empty nodes with one cheaper node', async (t) => {
  const { state, candidates } = setup(['a', 'b', 'c'].map((n) => launched(n, 'm5.xlarge', ['1500m'])));
  const [command] = await new ConsolidationMethod('multi', deps()).computeCommands(candidates, methodContext(state, now));
  t.equal(command?.consolidationType, 'multi');
  t.equal(command?.candidates.length, 3);
  t.equal(command?.replacements.length, 1);
  t.ok((command?.replacements[0]?.pricePerHour ?? Infinity) < 3 * priceOf('m5.xlarge', 'us-east-1a', 'on-demand'));
});

void t.test('WhenEmpty NodePools and nodes inside consolidateAfter are not candidates, and say why', async (t) => {
  const { state, candidates } = setup(
    [launched('busy', 'm5.xlarge', ['500m'], { pool: 'empty-only' }), launched('fresh', 'm5.xlarge', ['500m'], { lastPodEventMs: now - 2 * minute })],
    [pool({ consolidationPolicy: 'WhenEmpty' }, {}, 'empty-only'), pool({ consolidateAfter: '10m' })],
  );
  const method = new ConsolidationMethod('single', deps());
  const context = methodContext(state, now);
  t.same(candidates.map((c) => method.shouldDisrupt(c, context)), [false, false]);
  const findings = await method.findings(candidates, context, { explainAll: true, remember: false });
  t.same(findings.notConsolidated, [
    { nodeName: 'busy', reason: 'NodePool empty-only has consolidationPolicy WhenEmpty and the node has 1 pods to move' },
    { nodeName: 'fresh', reason: 'consolidateAfter 10m has not passed since the last pod event (8m0s left)' },
  ]);
  t.equal(findings.command, undefined);
});

void t.test('a NodePool minimum saving blocks a trivial move; the cluster-wide default applies where there is none', async (t) => {
  const nodes = [launched('spare', 'm5.large', ['500m']), launched('host', 'm5.xlarge', ['500m', '500m', '500m', '500m'])];
  const annotated = setup(nodes, [pool({}, { 'nodesmith.io/consolidation-min-savings': '$1/h' })]);
  const blocked = await new ConsolidationMethod('single', deps()).findings(annotated.candidates, methodContext(annotated.state, now), { explainAll: true, remember: false });
  t.equal(blocked.command, undefined);
  t.match(blocked.notConsolidated, [{ nodeName: 'spare', reason: 'deleting saves $0.0960/h, below the minimum saving $1/h' }]);
  const plain = setup(nodes);
  const byDefault = await new ConsolidationMethod('single', deps({ minSavings: { kind: 'perHour', dollars: 1, text: '$1/h' } })).findings(plain.candidates, methodContext(plain.state, now), { explainAll: true, remember: false });
  t.equal(byDefault.command, undefined, 'the flag blocks it too');
  const overridden = setup(nodes, [pool({}, { 'nodesmith.io/consolidation-min-savings': '0%' })]);
  const allowed = await new ConsolidationMethod('single', deps({ minSavings: { kind: 'perHour', dollars: 1, text: '$1/h' } })).findings(overridden.candidates, methodContext(overridden.state, now), { explainAll: false, remember: false });
  t.same(allowed.command?.candidates.map((c) => c.nodeName), ['spare'], 'the NodePool annotation wins over the flag');
});

void t.test('after a pass that finds nothing, passes are skipped until the cluster changes or 5 minutes pass', async (t) => {
  const nodes = [launched('a', 'c5.xlarge', ['3500m']), launched('b', 'c5.xlarge', ['3500m'])];
  const { state, candidates } = setup(nodes);
  const method = new ConsolidationMethod('single', deps());
  t.same(await method.computeCommands(candidates, methodContext(state, now)), []);
  t.equal(method.last?.simulations, 2);
  t.same(await method.computeCommands(candidates, methodContext(state, now + minute)), []);
  t.equal(method.last?.simulations, 0, 'skipped');
  t.match(method.last?.skipped, /^nothing changed since a single-node pass found nothing 60s ago/);
  t.same(await method.computeCommands(candidates, methodContext(state, now + consolidatedTtlMs)), []);
  t.equal(method.last?.simulations, 2, 'looked again after 5 minutes');
  state.removePod(nodes[0]?.pods[0] ?? (t.fail('no pod') as never));
  const [command] = await method.computeCommands([candidate(state, nodes[0] ?? (t.fail('') as never)), candidate(state, nodes[1] ?? (t.fail('') as never))], methodContext(state, now + consolidatedTtlMs + minute));
  t.same(command?.candidates.map((c) => c.nodeName), ['a'], 'a change is looked at at once: the emptied node goes');
});

void t.test('a budget that allows nothing holds candidates back with its sentence, and the pass is not remembered', async (t) => {
  const { state, candidates } = setup([launched('spare', 'm5.xlarge', ['500m']), launched('host', 'm5.xlarge', ['1', '1'])]);
  const method = new ConsolidationMethod('single', deps());
  t.same(await method.computeCommands(candidates, methodContext(state, now, { default: 0 })), []);
  t.match(method.last?.notConsolidated, [{ nodeName: 'spare', reason: 'budget of default allows 0' }, { nodeName: 'host', reason: 'budget of default allows 0' }]);
  const [command] = await method.computeCommands(candidates, methodContext(state, now + 1000));
  t.ok(command !== undefined, 'the next pass looks again once the budget opens');
});

void t.test('validation refuses a command the cluster no longer supports', async (t) => {
  const nodes = [launched('spare', 'm5.xlarge', ['500m']), launched('host', 'm5.xlarge', ['1', '1'])];
  const { state, candidates } = setup(nodes);
  const method = new ConsolidationMethod('single', deps());
  const [command] = await method.computeCommands(candidates, methodContext(state, now));
  if (command === undefined) {
    t.fail('no command');
    return;
  }
  state.upsertPod({ ...(nodes[1]?.pods[0] ?? (t.fail('') as never)), metadata: { name: 'filler', namespace: 'default', uid: 'filler' }, spec: { nodeName: 'host', containers: [{ name: 'app', resources: { requests: { cpu: '1800m', memory: '1Gi' } } }] } });
  t.match(await method.validate(command, methodContext(state, now)), /^no longer worth it: best replacement \S+ at \$0\.\d{4}\/h is not cheaper than \$0\.1920\/h|^the simulation now says replace/);
});

void t.test('each refused candidate gets one DisruptionBlocked Event with the sentence, not repeated while it holds', async (t) => {
  const recorded: { kind: string; name: string; reason: string; message: string }[] = [];
  const events = new DisruptionEvents({ record: (target, _type, reason, message) => { recorded.push({ kind: target.kind, name: target.name, reason, message }); } });
  const nodes = [launched('spare', 'm5.large', ['500m']), launched('host', 'm5.xlarge', ['500m', '500m', '500m', '500m'])];
  const { state, candidates } = setup(nodes, [pool({}, { 'nodesmith.io/consolidation-min-savings': '$1/h' })]);
  const method = new ConsolidationMethod('single', { ...deps(), events });
  await method.computeCommands(candidates, methodContext(state, now));
  const onNode = recorded.filter((r) => r.kind === 'Node').map((r) => [r.name, r.reason, r.message]);
  t.same(onNode, [
    ['spare', 'DisruptionBlocked', 'cannot disrupt: single-node consolidation: deleting saves $0.0960/h, below the minimum saving $1/h'],
    ['host', 'DisruptionBlocked', `cannot disrupt: single-node consolidation: ${method.last?.notConsolidated.find((n) => n.nodeName === 'host')?.reason ?? '?'}`],
  ]);
  t.equal(recorded.filter((r) => r.kind === 'NodeClaim').length, 2, 'the NodeClaims get them too');
  await method.computeCommands(candidates, methodContext(state, now + consolidatedTtlMs));
  t.equal(recorded.length, 4, 'the same sentences are not repeated');
});

void t.test('a WhenEmpty node with pods gets one Event saying so from both methods, the consolidateAfter countdown none', (t) => {
  const recorded: { kind: string; name: string; message: string }[] = [];
  const events = new DisruptionEvents({ record: (target, _type, _reason, message) => { recorded.push({ kind: target.kind, name: target.name, message }); } });
  const { state, candidates } = setup(
    [launched('busy', 'm5.xlarge', ['500m'], { pool: 'empty-only' }), launched('fresh', 'm5.xlarge', ['500m'], { lastPodEventMs: now - 2 * minute })],
    [pool({ consolidationPolicy: 'WhenEmpty' }, {}, 'empty-only'), pool({ consolidateAfter: '10m' })],
  );
  for (const kind of ['multi', 'single'] as const) new ConsolidationMethod(kind, { ...deps(), events }).reportIneligible(candidates, methodContext(state, now));
  t.same(recorded.filter((r) => r.kind === 'Node'), [
    { kind: 'Node', name: 'busy', message: 'cannot disrupt: consolidation: NodePool empty-only has consolidationPolicy WhenEmpty and the node has 1 pods to move' },
  ]);
  t.equal(recorded.filter((r) => r.kind === 'NodeClaim').length, 1, 'and its NodeClaim');
  t.end();
});

void t.test('a move does not count on room in an empty node emptiness is about to remove, only on nodes that stay', async (t) => {
  // host's two pods fit on `emptied`, which a scale-in just emptied: moving them there evicts both to remove one node,
  // where emptiness removes `emptied` within its consolidateAfter and evicts nobody.
  const waiting = setup([launched('host', 'c5.xlarge', ['1500m', '1500m']), launched('emptied', 'c5.xlarge', [], { lastPodEventMs: now - 10_000 })], [pool({ consolidateAfter: '1m' })]);
  const held = await new ConsolidationMethod('single', deps()).findings(waiting.candidates, methodContext(waiting.state, now, {}, { scanned: waiting.candidates }), { explainAll: true, remember: false });
  t.equal(held.command, undefined, 'no move into the node that is about to go');
  t.match(held.notConsolidated.find((n) => n.nodeName === 'host')?.reason, /best replacement c5\.xlarge .* is not cheaper/, 'its pods would need a node of its own');
  const busy = setup([launched('host', 'c5.xlarge', ['1500m', '1500m']), launched('stays', 'c5.xlarge', ['500m'], { lastPodEventMs: now - 10_000 })], [pool({ consolidateAfter: '1m' })]);
  const moved = await new ConsolidationMethod('single', deps()).findings(busy.candidates, methodContext(busy.state, now, {}, { scanned: busy.candidates }), { explainAll: false, remember: false });
  t.same(moved.command?.candidates.map((c) => c.nodeName), ['host'], 'a node that keeps pods is still a destination');
  t.same(moved.command?.replacements, []);
});

void t.test('a command gives way at its validation when a pass now finds a move that evicts fewer pods for the same saving', async (t) => {
  // Decided while only `full` was consolidatable (the thin nodes had just lost pods to a scale-in): delete it, its two
  // pods moving beside a thin node's one. By validation the thin nodes have waited out consolidateAfter, and removing
  // one of them saves as much and evicts one pod.
  const nodes = [launched('full', 'c5.xlarge', ['1500m', '1500m']), launched('thin1', 'c5.xlarge', ['500m'], { lastPodEventMs: now - 10_000 }), launched('thin2', 'c5.xlarge', ['500m'], { lastPodEventMs: now - 10_000 })];
  const { state, candidates } = setup(nodes, [pool({ consolidateAfter: '1m' })]);
  const method = new ConsolidationMethod('single', deps());
  const [command] = await method.computeCommands(candidates.filter((c) => c.nodeName === 'full'), methodContext(state, now, {}, { scanned: candidates }));
  t.same(command?.candidates.map((c) => c.nodeName), ['full'], 'decided on the one consolidatable node');
  t.equal(command?.moves?.length, 2);
  const decided = command ?? (t.fail('no command') as never);
  t.equal(await method.validate(decided, methodContext(state, now, {}, { scanned: candidates })), undefined, 'nothing better while the thin nodes wait');
  const later = now + 2 * minute;
  t.match(await method.validate(decided, methodContext(state, later, {}, { scanned: candidates })), /^a pass now finds a move that evicts 1 pods instead of 2 for at least the same saving: delete thin/);
});
