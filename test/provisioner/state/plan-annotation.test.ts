import t from 'tap';
import type { Node } from '../../../domain/core/node.js';
import { launchableLabel, planNodeAnnotation } from '../../../domain/product-keys.js';
import type { VirtualNodePlan } from '../../../provisioner/index.js';
import { planOfNode, planText } from '../../../provisioner/state/plan-annotation.js';

const plan: VirtualNodePlan = {
  nodeName: 'launchable-default-abcde', nodePool: 'default', instanceTypes: ['m5.large'], pricePerHour: 0.096,
  zone: 'us-east-1a', assignedPods: ['default/web-0'], room: { cpu: '1930m', memory: '7Gi', pods: '29' },
};

function virtualNode(annotation: string | undefined, launchable = true): Node {
  return {
    metadata: {
      name: plan.nodeName,
      labels: launchable ? { [launchableLabel]: 'true' } : {},
      ...(annotation === undefined ? {} : { annotations: { [planNodeAnnotation]: annotation } }),
    },
  };
}

void t.test('a plan written on its virtual node reads back the same', (t) => {
  t.same(planOfNode(virtualNode(planText(plan))), plan);
  t.end();
});

void t.test('no plan is read from a real node, a missing or damaged annotation, or JSON that is not a plan', (t) => {
  t.equal(planOfNode(virtualNode(planText(plan), false)), undefined, 'not labelled launchable');
  t.equal(planOfNode(virtualNode(undefined)), undefined, 'no annotation');
  t.equal(planOfNode(virtualNode('{"nodeName":')), undefined, 'truncated JSON');
  t.equal(planOfNode(virtualNode('{"nodeName":"x"}')), undefined, 'no assigned pods');
  t.end();
});
