import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { Pod } from '../../domain/core/pod.js';
import { podDoNotDisrupt } from '../../domain/disruption/do-not-disrupt.js';
import { isDaemonSetPod, isMirrorPod } from '../../domain/disruption/pod-facts.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { nanosToUnits, parseQuantity } from '../../domain/quantity.js';
import { planStaticClaim } from '../../domain/simulation/static-claim.js';
import type { PlannedNodeClaim } from '../../domain/simulation/simulation-input.js';
import { isStaticNodePool } from '../../domain/static-nodepool.js';
import type { StaticClaimFacts, StaticPodFacts, StaticPoolFacts } from '../../domain/static-replicas.js';
import { nodePoolOf, timestampMs } from '../../domain/api/status-conditions.js';
import { typesForNodeClass } from '../state/node-class-capacities.js';
import { nodePoolConditionTypes } from '../state/nodepool-conditions.js';
import type { ClusterState } from '../state/cluster-state.js';
import type { StaticLaunches } from './static-launches.js';

/** The static NodePools that are not being deleted, by name. */
export function staticNodePools(state: ClusterState): NodePool[] {
  return [...state.nodePools.values()].filter((p) => isStaticNodePool(p) && p.metadata.deletionTimestamp == null);
}

export function staticPoolFacts(pool: NodePool): StaticPoolFacts {
  const nodes = pool.spec.limits?.['nodes'];
  const ready = pool.status?.conditions?.some((c) => c.type === nodePoolConditionTypes.ready && c.status === 'True') === true;
  return {
    replicas: pool.spec.replicas ?? 0, ready,
    ...(nodes === undefined ? {} : { nodeLimit: nanosToUnits(parseQuantity(nodes)) }),
    ...(pool.spec.template.spec.expireAfter === undefined ? {} : { expireAfter: pool.spec.template.spec.expireAfter }),
  };
}

function podFacts(pod: Pod, nowMs: number): StaticPodFacts {
  const started = timestampMs(pod.status?.startTime);
  return {
    daemon: isDaemonSetPod(pod) || isMirrorPod(pod),
    doNotDisrupt: podDoNotDisrupt(pod.metadata.annotations, started, nowMs).kind === 'blocks',
    ...(pod.metadata.annotations === undefined ? {} : { annotations: pod.metadata.annotations }),
    ...(pod.spec.priority === undefined ? {} : { priority: pod.spec.priority }),
  };
}

const running = (pod: Pod): boolean => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && pod.metadata.deletionTimestamp == null;

/** A deletion in flight and a disruption command's mark count as what they will be: the node leaving. */
function phaseOf(state: ClusterState, claim: NodeClaim, nodeName: string): StaticClaimFacts['phase'] {
  if (claim.metadata.deletionTimestamp != null) return 'deleting';
  if (nodeName === '') return 'active';
  if (state.marks.isMarkedDeleting(nodeName)) return 'deleting';
  return state.marks.disruptionOf(nodeName) === undefined ? 'active' : 'disrupting';
}

/** What the model says of one static NodeClaim. */
function claimFacts(state: ClusterState, claim: NodeClaim, launches: StaticLaunches, nowMs: number): StaticClaimFacts {
  const name = claim.metadata.name ?? '';
  const nodeName = claim.status?.nodeName ?? '';
  return {
    name, phase: phaseOf(state, claim, nodeName),
    launched: (claim.status?.providerID ?? '') !== '',
    launching: launches.isLaunching(name),
    createdMs: timestampMs(claim.metadata.creationTimestamp) ?? nowMs,
    pods: nodeName === '' ? [] : state.podsOn(nodeName).filter(running).map((p) => podFacts(p, nowMs)),
  };
}

/**
 * Every NodeClaim of the static pool: those in the model, and those this process is launching that the model does
 * not show yet. `deleted` names NodeClaims this process deleted whose deletion the watch has not delivered yet.
 */
export function staticClaimFacts(state: ClusterState, pool: string, context: { launches: StaticLaunches; deleted: ReadonlySet<string>; nowMs: number }): StaticClaimFacts[] {
  const claims = [...state.nodeClaims.values()].filter((c) => nodePoolOf(c) === pool);
  const known = new Set(claims.map((c) => c.metadata.name ?? ''));
  const modelled = claims.map((c) => claimFacts(state, c, context.launches, context.nowMs))
    .map((f) => (context.deleted.has(f.name) ? { ...f, phase: 'deleting' as const } : f));
  const unseen = context.launches.unseen(pool, (name) => known.has(name), context.nowMs)
    .map((name): StaticClaimFacts => ({ name, phase: 'active', launched: false, launching: true, createdMs: context.nowMs, pods: [] }));
  return [...modelled, ...unseen];
}

/** A static pool's NodeClaim, planned from its template and its EC2NodeClass's instance types (cheapest first). */
export function plannedStaticClaim(state: ClusterState, pool: NodePool, name: string, catalog: { readonly instanceTypes: readonly InstanceType[]; readonly unavailable: ReadonlySet<string> }): PlannedNodeClaim | undefined {
  const sized = typesForNodeClass(state, pool.spec.template.spec.nodeClassRef.name, catalog.instanceTypes);
  return planStaticClaim({ pool, name, catalog: catalog.instanceTypes, sized, unavailable: catalog.unavailable });
}
