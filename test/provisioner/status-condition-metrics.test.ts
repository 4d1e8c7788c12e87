import t from 'tap';
import { Registry } from 'prom-client';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { FakeClock } from '../../domain/clock.js';
import { registerStatusConditionMetrics } from '../../provisioner/status-condition-metrics.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { renameMetricsNamespace } from '../../cli/metrics-namespace.js';

const start = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number): string => new Date(start + seconds * 1000).toISOString();
type Condition = NonNullable<NonNullable<NodeClaim['status']>['conditions']>[number];
const cond = (type: string, status: string, seconds: number, reason = type): Condition => ({ type, status, reason, message: '', lastTransitionTime: at(seconds) } as Condition);

function claim(conditions: Condition[], deletionTimestamp?: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name: 'default-abcde', labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.k8s.aws/ec2nodeclass': 'default' }, ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    status: { conditions },
  };
}

function setup(): { state: ClusterState; clock: FakeClock; text: () => Promise<string> } {
  const registry = new Registry();
  const state = new ClusterState();
  const clock = new FakeClock(start);
  registerStatusConditionMetrics(registry, state, clock);
  // The renamer must leave operatorpkg's names alone: Karpenter serves them without its namespace.
  return { state, clock, text: async () => renameMetricsNamespace(await registry.metrics(), 'karpenter') };
}

const extra = 'karpenter_k8s_aws_ec2nodeclass="default",karpenter_sh_nodepool="default"';

void t.test("a NodeClaim's conditions are counted per type, status and reason, with their age, under operatorpkg's names", async (t) => {
  const { state, clock, text } = setup();
  state.upsertNodeClaim(claim([cond('Launched', 'True', 0), cond('Registered', 'Unknown', 0, 'AwaitingReconciliation')]));
  clock.step(30_000);
  const served = await text();
  t.match(served, new RegExp(`^operator_nodeclaim_status_condition_count\\{namespace="",name="default-abcde",type="Launched",status="True",reason="Launched",${extra}\\} 1$`, 'm'));
  t.match(served, /^operator_nodeclaim_status_condition_count\{[^}]*type="Registered",status="Unknown",reason="AwaitingReconciliation"[^}]*\} 1$/m);
  t.match(served, /^operator_nodeclaim_status_condition_current_status_seconds\{[^}]*type="Launched"[^}]*\} 30$/m, 'seconds since lastTransitionTime');
  t.match(served, new RegExp(`^operator_nodeclaim_status_condition_transitions_total\\{type="Launched",status="True",reason="Launched",${extra}\\} 1$`, 'm'), 'a first True is a transition');
  t.notMatch(served, /transitions_total\{type="Registered"/, 'a first Unknown is not (operatorpkg reads a missing condition as Unknown)');
});

void t.test('a transition is counted once and the previous status is timed', async (t) => {
  const { state, text } = setup();
  state.upsertNodeClaim(claim([cond('Registered', 'Unknown', 0)]));
  state.upsertNodeClaim(claim([cond('Registered', 'True', 42)]));
  state.upsertNodeClaim(claim([cond('Registered', 'True', 42)]));
  const served = await text();
  t.match(served, /^operator_nodeclaim_status_condition_transitions_total\{type="Registered",status="True"[^}]*\} 1$/m);
  t.match(served, /^operator_nodeclaim_status_condition_transition_seconds_sum\{type="Registered",status="Unknown"[^}]*\} 42$/m, '42 s spent Unknown');
  t.match(served, /^operator_nodeclaim_status_condition_transition_seconds_bucket\{le="64",type="Registered",status="Unknown"[^}]*\} 1$/m, "Karpenter's buckets (0.5 × 2^i)");
  t.notMatch(served, /status_condition_count\{[^}]*status="Unknown"/, 'the old status is no longer counted');
});

void t.test('a deleting NodeClaim shows its terminating time, and its removal the whole termination', async (t) => {
  const { state, clock, text } = setup();
  state.upsertNodeClaim(claim([cond('Ready', 'True', 0)], at(10)));
  clock.step(25_000);
  t.match(await text(), new RegExp(`^operator_nodeclaim_termination_current_time_seconds\\{namespace="",name="default-abcde",${extra}\\} 15$`, 'm'));
  state.removeNodeClaim(claim([]));
  const served = await text();
  t.match(served, new RegExp(`^operator_nodeclaim_termination_duration_seconds_sum\\{${extra}\\} 15$`, 'm'));
  t.notMatch(served, /^operator_nodeclaim_status_condition_count\{/m, 'a removed claim has no condition series');
  t.notMatch(served, /^operator_nodeclaim_termination_current_time_seconds\{/m);
});

void t.test('NodePools, EC2NodeClasses and real Nodes are covered; virtual nodes are not', async (t) => {
  const { state, text } = setup();
  state.upsertObject('nodepool', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } }, status: { conditions: [cond('Ready', 'True', 0)] } } as never);
  state.upsertObject('ec2nodeclass', { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default' }, spec: {}, status: { conditions: [cond('SubnetsReady', 'False', 0, 'SubnetsNotFound')] } });
  state.upsertNode({ metadata: { name: 'i-1', labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/initialized': 'true' } }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: at(0) }] } });
  state.upsertNode({ metadata: { name: 'launchable-x', labels: { 'nodesmith.io/launchable': 'true' } }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(0) }] } });
  const served = await text();
  t.match(served, /^operator_nodepool_status_condition_count\{namespace="",name="default",type="Ready",status="True",reason="Ready"\} 1$/m);
  t.match(served, /^operator_ec2nodeclass_status_condition_count\{namespace="",name="default",type="SubnetsReady",status="False",reason="SubnetsNotFound"\} 1$/m);
  t.match(served, /^operator_node_status_condition_count\{namespace="",name="i-1",type="Ready",status="True",reason="KubeletReady",karpenter_k8s_aws_ec2nodeclass="",karpenter_sh_nodepool="default",karpenter_sh_initialized="true"\} 1$/m);
  t.notMatch(served, /name="launchable-x"/, 'a virtual node is a plan');
});
