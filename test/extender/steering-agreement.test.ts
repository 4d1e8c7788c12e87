// The planner and the extender read a pod's steering annotations with one parser, so a pod the pod webhook never
// saw (failurePolicy Ignore) is not planned onto a node the filter then refuses it forever.
import t from 'tap';
import type { Pod } from '../../domain/core/pod.js';
import { launchableTaint, podAnnotations } from '../../domain/product-keys.js';
import { parseResourceList } from '../../domain/resource-list.js';
import { simulate } from '../../domain/simulation/simulate.js';
import type { SnapshotNode } from '../../domain/simulation/simulation-input.js';
import { input } from '../domain/simulation/fixtures.js';
import { extenderArgs, harness, plan, pod, virtualNode } from './builders.js';

const room = { cpu: '3800m', memory: '15Gi', pods: '58' };
const launchableToleration = { key: launchableTaint.key, operator: 'Equal', value: launchableTaint.value, effect: launchableTaint.effect };

/** A pod with steering annotations that tolerates virtual nodes. */
function steeredPod(name: string, annotations: Record<string, string>): Pod {
  const base = pod({ name, annotations });
  return { ...base, spec: { ...base.spec, tolerations: [launchableToleration] } };
}

function inFlight(name: string, pricePerHour: number): SnapshotNode {
  const node = virtualNode(name);
  return {
    name,
    labels: node.metadata.labels ?? {},
    taints: node.spec?.taints ?? [],
    allocatable: parseResourceList(room),
    pods: [],
    inFlight: true,
    pricePerHour,
  };
}

for (const maxPrice of ['0', '-1', 'cheap']) {
  void t.test(`a pod with the refused max price "${maxPrice}" that the planner puts on a virtual node passes the filter there`, async (t) => {
    const steered = steeredPod('late', { [podAnnotations.maxPricePerHour]: maxPrice });
    const result = simulate(input([steered], { nodes: [inFlight('launchable-a', 0.2)] }));
    t.same(result.existing.map((e) => e.node), ['launchable-a'], 'the planner places the pod in the planned room');

    const h = harness();
    h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
    h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/earlier'], pricePerHour: 0.2, room }) });
    const response = await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(steered, ['launchable-a']) });
    const verdict = response.json<{ NodeNames: string[]; FailedAndUnresolvableNodes: Record<string, string> }>();
    t.same(verdict.NodeNames, ['launchable-a'], 'the filter admits it');
    t.same(verdict.FailedAndUnresolvableNodes, {});
  });
}

void t.test('a valid max price below the plan keeps the pod off that virtual node in the filter', async (t) => {
  const steered = pod({ name: 'thrifty', annotations: { [podAnnotations.maxPricePerHour]: '0.1' } });
  const h = harness();
  h.view.apply({ kind: 'node-upserted', node: virtualNode('launchable-a') });
  h.view.apply({ kind: 'plan-upserted', plan: plan('launchable-a', { assignedPods: ['default/earlier'], pricePerHour: 0.2, room }) });
  const response = await h.app.inject({ method: 'POST', url: '/filter', payload: extenderArgs(steered, ['launchable-a']) });
  t.match(response.json(), { NodeNames: [], FailedAndUnresolvableNodes: { 'launchable-a': /exceeds the pod's maximum 0.1\/h/ } });
});

void t.test('the planner does not put a pod on a virtual node dearer than its max price, which the filter would refuse', (t) => {
  const steered = steeredPod('thrifty', { [podAnnotations.maxPricePerHour]: '0.1' });
  const result = simulate(input([steered], { nodes: [inFlight('launchable-a', 0.2)] }));
  t.same(result.existing, []);
  t.ok(result.nodeClaims.every((claim) => claim.pricePerHour <= 0.1), 'a cheaper node is planned instead');
  t.same(result.nodeClaims.flatMap((claim) => claim.pods.map((p) => p.metadata.name)), ['thrifty']);
  t.end();
});
