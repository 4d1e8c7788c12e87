import t from 'tap';
import { nodeClassCapacities, typeForNodeClass } from '../../../provisioner/state/node-class-capacities.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { fewInstanceTypes, nodeClass } from '../../fakes/provisioning-builders.js';

// The placement group each class's selector resolved to is kept in memory (as Karpenter keeps it); each class's
// settings are derived from its object and that group, so a group resolved later changes what the planner sees.

void t.test('a class with a selector launches nothing until its group is resolved, then plans in it', (t) => {
  const state = stateWith({ nodeClasses: [nodeClass('training', { placementGroupSelector: { name: 'training' } }), nodeClass('plain')] });
  const byName = (): Map<string, ReturnType<typeof nodeClassCapacities>[number]> => new Map(nodeClassCapacities(state).map((c) => [c.name, c]));
  t.equal(byName().get('training')?.placementGroupPending, true);
  t.equal(byName().get('plain')?.placementGroupPending, undefined, 'a class without a selector waits for nothing');
  state.placementGroups.record('training', { id: 'pg-1', name: 'training', strategy: 'partition', partitionCount: 2 });
  t.same(byName().get('training')?.placementGroup, { id: 'pg-1', strategy: 'partition', partitionCount: 2 });
  t.equal(byName().get('training')?.placementGroupPending, undefined);
  const [m5] = fewInstanceTypes;
  if (m5 === undefined) throw new Error('catalog');
  t.equal(typeForNodeClass(state, 'training', m5).labels['karpenter.k8s.aws/placement-group-id'], 'pg-1', 'a launched type is labelled with the group');
  state.placementGroups.record('training', undefined);
  t.equal(byName().get('training')?.placementGroupPending, true, 'a group gone is waited for again');
  t.end();
});
