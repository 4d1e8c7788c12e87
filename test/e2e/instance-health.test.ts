import * as k8s from '@kubernetes/client-node';
import t, { type Test } from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { listClaims, scenarioPods } from './disruption-support.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';
import { applyScenarioPool } from './scenario-pools.js';

/**
 * Instance health on the real stack. moto reports every status check passed, so the fault proxy answers
 * DescribeInstanceStatus's "impaired" queries with a failed check for the instance the test chooses
 * (test/stack/instance-status-fault.ts); nodesmith polls once a minute, as Karpenter does.
 */
const product = await withProduct(t);
const proxy = product.proxy;
const minute = 60_000;

async function metrics(): Promise<string> {
  return (await product.nodesmith?.registry.metrics()) ?? '';
}

/** The NodeClaim said why, the instance went, the metrics counted it, and moto answered every poll. */
async function assertForcefulReplacement(t: Test, claimName: string, instanceId: string): Promise<void> {
  const events = (await product.core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${claimName}` })).items;
  t.ok(events.some((e) => e.reason === 'InstanceUnhealthy'), 'an InstanceUnhealthy Event on the NodeClaim');
  await waitFor('the impaired instance terminated', async () => {
    const instance = (await listInstances(product)).find((i) => i.id === instanceId);
    return instance === undefined || instance.state === 'terminated' ? true : undefined;
  }, { timeoutMs: 60_000 });
  const m = await metrics();
  t.match(m, /nodesmith_interruption_instance_status_unhealthy_total\{category="instance_status"\} 1/);
  t.match(m, /nodesmith_nodeclaims_disrupted_total\{nodepool="impaired",reason="instance_status",capacity_type="[a-z-]+",consolidation_policy="",termination_mode="forceful"\} 1/);
  t.notMatch(m, /nodesmith_controller_reconcile_errors_total\{controller="interruption.instancestatus"\}/, "moto answers Karpenter's three queries without an error (all three before the impairment, the scheduled-event one throughout)");
  t.ok(proxy.actions.filter((a) => a === 'DescribeInstanceStatus').length >= 3, 'each poll makes Karpenter\'s three queries');
}

/** One pod in its own pool whose PDB (minAvailable 1 of 1) refuses every eviction, Running on its own node. */
async function guardedPod(): Promise<{ before: Awaited<ReturnType<typeof waitForRunning>>; nodeName: string; zone: string; claimName: string; instanceId: string }> {
  await applyScenarioPool(product, 'impaired');
  await product.kc.makeApiClient(k8s.PolicyV1Api).createNamespacedPodDisruptionBudget({
    namespace: 'default', body: { metadata: { name: 'health-db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'health-db' } } } },
  });
  await createDeployment(product, { name: 'health-db', replicas: 1, cpu: '250m', memory: '256Mi', ...scenarioPods('impaired') });
  const before = await waitForRunning(product, 'health-db', 1, 240_000);
  const [nodeName = '', node] = [...before.nodes.entries()][0] ?? [];
  const claim = (await listClaims(product)).find((c) => c.nodeName === nodeName);
  return { before, nodeName, zone: node?.metadata?.labels?.[wellKnown.zone] ?? '', claimName: claim?.name ?? '', instanceId: claim?.instanceId ?? '' };
}

await t.test('an impaired instance is terminated forcefully: its PDB-guarded pod is deleted at once and runs again on a new node', async (t) => {
  const { before, nodeName, zone, claimName, instanceId } = await guardedPod();
  t.match(instanceId, /^i-/, `node ${nodeName} runs instance ${instanceId}`);

  const impairedAt = Date.now();
  // Failed for 3 minutes: past Karpenter's 2-minute threshold, so the next poll acts on it.
  proxy.setImpaired([{ instanceId, zone, check: 'instance', since: new Date(impairedAt - 3 * minute) }]);
  t.teardown(() => { proxy.setImpaired([]); });
  await waitFor('the NodeClaim to be gone', async () => ((await listClaims(product)).some((c) => c.name === claimName) ? undefined : true), { timeoutMs: 150_000, intervalMs: 250 });
  const goneMs = Date.now() - impairedAt;
  const after = await waitForRunning(product, 'health-db', 1, 240_000);
  const runningMs = Date.now() - impairedAt;
  t.comment(`NodeClaim gone ${String(goneMs)} ms, pod Running on its replacement ${String(runningMs)} ms after the check failed in the API (one poll a minute)`);

  t.notOk(after.nodes.has(nodeName), 'the pod runs on another node');
  t.not(after.pods[0]?.metadata?.uid, before.pods[0]?.metadata?.uid, 'a new pod: the old one was deleted although its PDB refuses every eviction (the termination timestamp was now)');
  await assertForcefulReplacement(t, claimName, instanceId);
});
