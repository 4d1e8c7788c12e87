// The one place tests build the provisioner's cluster state, so a change of ClusterState's API is a change here.
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { VirtualNodePlan } from '../../provisioner/index.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';

export interface StateContents {
  readonly nodes?: readonly Node[];
  readonly pods?: readonly Pod[];
  /** Plans without their virtual Node (a virtual Node in `nodes` brings its own plan). */
  readonly plans?: readonly VirtualNodePlan[];
  readonly nodePools?: readonly NodePool[];
  readonly nodeClasses?: readonly EC2NodeClass[];
  readonly nodeClaims?: readonly NodeClaim[];
  readonly daemonSets?: readonly DaemonSet[];
  /** Default true: the informers have listed everything. */
  readonly synced?: boolean;
}

/** A cluster state holding exactly these objects, as the informers would deliver them. */
export function stateWith(contents: StateContents): ClusterState {
  const state = new ClusterState();
  const { nodes = [], pods = [], plans = [], nodePools = [], nodeClasses = [], nodeClaims = [], daemonSets = [] } = contents;
  nodes.forEach((node) => { state.upsertNode(node); });
  pods.forEach((pod) => { state.upsertPod(pod); });
  plans.forEach((plan) => { state.upsertPlan(plan); });
  nodePools.forEach((pool) => { state.upsertObject('nodepool', pool); });
  nodeClasses.forEach((nodeClass) => { state.upsertObject('ec2nodeclass', nodeClass); });
  nodeClaims.forEach((claim) => { state.upsertNodeClaim(claim); });
  daemonSets.forEach((daemonSet) => { state.upsertObject('daemonset', daemonSet); });
  if (contents.synced !== false) state.markSynced();
  return state;
}

/** The state's pods and nodes as the API would report them after the test's writes came back through watches. */
export function feedBack(state: ClusterState, change: { readonly node?: Node; readonly deletedNode?: string; readonly pod?: Pod }): void {
  if (change.node !== undefined) state.upsertNode(change.node);
  if (change.pod !== undefined) state.upsertPod(change.pod);
  const gone = change.deletedNode === undefined ? undefined : state.nodes.get(change.deletedNode);
  if (gone !== undefined) state.removeNode(gone);
}
