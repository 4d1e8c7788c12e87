import t from 'tap';
import { ConsolidationMethod } from '../../../provisioner/disruption/consolidation-method.js';
import { nominationMs, placementTtlMs, recordPlacements } from '../../../provisioner/disruption/planned-placement.js';
import { candidate, cluster, launched, methodContext, priceOf, types } from './consolidation-fixtures.js';

const now = 100 * 60_000;
const deps = { clock: { now: () => now, sleep: () => Promise.resolve() }, priceOf, instanceTypes: () => types, unavailableOfferings: () => new Set<string>(), options: { spotToSpot: false } };

void t.test('a delete plans the moved pods onto the node the simulation chose, and nominates it for a minute', async (t) => {
  const nodes = [launched('spare', 'm5.xlarge', ['500m']), launched('host', 'm5.xlarge', ['1', '1'])];
  const state = cluster(nodes);
  const [command] = await new ConsolidationMethod('single', deps).computeCommands(nodes.map((n) => candidate(state, n)), methodContext(state, now));
  if (command === undefined) {
    t.fail('no command');
    return;
  }
  t.equal(recordPlacements(state, { command, startedAtMs: now, replacements: [] }, now), 1);
  const [moved] = nodes[0]?.pods ?? [];
  if (moved === undefined) {
    t.fail('no pod');
    return;
  }
  t.same([...state.plannedPlacement(moved)], ['host'], 'the recreated pod is steered to host');
  t.same([...state.marks.nominatedPods('host', now + nominationMs - 1)], ['default/spare-pod-0'], 'host is nominated for it');
  t.same([...state.marks.nominatedPods('host', now + nominationMs)], [], 'for a minute');
  state.placements.sweep(now + placementTtlMs, () => true);
  t.same([...state.plannedPlacement(moved)], [], 'the plan lapses after five minutes');
});

void t.test('a replacement plans the pods onto the node it was launched as, not the planned name', async (t) => {
  const nodes = ['a', 'b', 'c'].map((n) => launched(n, 'm5.xlarge', ['1500m']));
  const state = cluster(nodes);
  const [command] = await new ConsolidationMethod('multi', deps).computeCommands(nodes.map((n) => candidate(state, n)), methodContext(state, now));
  if (command === undefined) {
    t.fail('no command');
    return;
  }
  t.equal(recordPlacements(state, { command, startedAtMs: now, replacements: [{ nodeClaimName: 'default-r1', nodeName: 'i-0new' }] }, now), 3);
  for (const pod of nodes.flatMap((n) => n.pods)) t.same([...state.plannedPlacement(pod)], ['i-0new'], `${pod.metadata.name ?? ''} goes to the replacement`);
});
