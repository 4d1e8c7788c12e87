import t from 'tap';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { launchLabelsOf } from '../../../provisioner/state/launch-labels.js';

const types: Record<string, Record<string, string>> = {
  'm5.large': { 'node.kubernetes.io/instance-type': 'm5.large', 'karpenter.k8s.aws/instance-family': 'm5' },
  'c5.xlarge': { 'node.kubernetes.io/instance-type': 'c5.xlarge', 'karpenter.k8s.aws/instance-family': 'c5' },
};
const typeLabels = (name: string): Record<string, string> | undefined => types[name];
const plan = (instanceTypes: string[]): VirtualNodePlan => ({ nodeName: 'launchable-a', nodePool: 'default', instanceTypes, pricePerHour: 0.1, assignedPods: [], room: {} });

void t.test('a plan that may launch as several types gives the labels of each, over its node\'s own', (t) => {
  const sets = launchLabelsOf(plan(['m5.large', 'c5.xlarge', 'unknown.type']), { 'karpenter.sh/nodepool': 'default' }, typeLabels);
  t.same(sets, [
    { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large', 'karpenter.k8s.aws/instance-family': 'm5' },
    { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'c5.xlarge', 'karpenter.k8s.aws/instance-family': 'c5' },
  ], 'a type the catalog does not know adds none');
  t.equal(launchLabelsOf(plan(['m5.large']), {}, typeLabels), undefined, 'one type: the node shows its labels already');
  t.equal(launchLabelsOf(plan(['m5.large', 'c5.xlarge']), {}, undefined), undefined, 'no catalog: nothing to say');
  t.end();
});

void t.test('the next pass gets the same label sets while the labels are the same, so nothing is rebuilt or compared', (t) => {
  const p = plan(['m5.large', 'c5.xlarge']);
  const first = launchLabelsOf(p, { 'karpenter.sh/nodepool': 'default' }, typeLabels);
  t.equal(launchLabelsOf(p, { 'karpenter.sh/nodepool': 'default' }, typeLabels), first, 'a heartbeat\'s new Node object with the same labels');
  const relabelled = launchLabelsOf(p, { 'karpenter.sh/nodepool': 'other' }, typeLabels);
  t.not(relabelled, first, 'new node labels build them again');
  t.equal(relabelled?.[0]?.['karpenter.sh/nodepool'], 'other');
  const recatalogued = launchLabelsOf(p, { 'karpenter.sh/nodepool': 'other' }, (name) => ({ ...types[name] }));
  t.not(recatalogued, relabelled, 'a new catalog builds them again');
  t.end();
});
