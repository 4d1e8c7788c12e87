import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { LaunchedInstance, LaunchRequest } from '../../domain/cloud/cloud-provider.js';
import type { ResolvedNodeClass } from '../../domain/cloud/node-class.js';
import { InsufficientCapacityError, isInsufficientCapacityError } from '../../domain/cloud/errors.js';
import type { VirtualNodePlan } from '../index.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { chooseOfferings } from './launch-offerings.js';
import { typeForNodeClass } from '../state/node-class-capacities.js';
import type { MaterializerDeps } from './materializer-deps.js';
import { nodeClassSpecOf } from '../state/node-class-spec.js';
import { minValuesRelaxedKey, nodeClaimKey } from '../../domain/karpenter-keys.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';

const maxAttempts = 5;

async function resolveNodeClass(deps: MaterializerDeps, pool: NodePool, claimName: string): Promise<ResolvedNodeClass> {
  const name = pool.spec.template.spec.nodeClassRef.name;
  const nodeClass = deps.state.nodeClasses.get(name);
  if (nodeClass === undefined) throw new Error(`launching nodeclaim ${claimName}: EC2NodeClass ${name} not found`);
  const resolved = await deps.resolver.resolve(nodeClassSpecOf(nodeClass));
  // The group this launch resolved sizes the types it launches (classCatalog), also before the status controller's
  // first pass after a restart has recorded it.
  deps.state.placementGroups.record(name, resolved.placementGroup);
  return resolved;
}

/**
 * The plan's types as the NodePool's EC2NodeClass sizes them: the max pods each offering tells its kubelet is the
 * class's (maxPods, podsPerCore, ENI limits), as Karpenter passes each type's pod capacity to the user data.
 */
function classCatalog(deps: MaterializerDeps, pool: NodePool, plan: VirtualNodePlan): ReadonlyMap<string, InstanceType> {
  const catalog = deps.catalog();
  const className = pool.spec.template.spec.nodeClassRef.name;
  const out = new Map<string, InstanceType>();
  for (const name of plan.instanceTypes) {
    const type = catalog.get(name);
    if (type !== undefined) out.set(name, typeForNodeClass(deps.state, className, type));
  }
  return out;
}

async function findOrphan(deps: MaterializerDeps, claimName: string): Promise<LaunchedInstance | undefined> {
  // Only this NodeClaim's instances: a bind retried during a burst of a thousand launches comes here, and listing
  // every instance each time took 33 s in moto at 750 instances.
  return (await deps.cloud.list({ nodeClaimName: claimName })).find((i) => i.nodeClaimName === claimName || i.tags[nodeClaimKey] === claimName);
}

/**
 * What the launch takes from the NodeClaim itself: the kubelet's labels and taints, whether minValues were relaxed,
 * whether it asks for EFA, and the placement group partition it requires.
 */
export function claimLaunchFields(claim: NodeClaim): Pick<LaunchRequest, 'nodeLabels' | 'nodeTaints' | 'minValuesRelaxed' | 'efaRequested' | 'placementPartition'> {
  const partition = requiredPartition(claim);
  const taints = [...(claim.spec.taints ?? []), ...(claim.spec.startupTaints ?? [])].map((t) => ({ key: t.key, effect: t.effect as 'NoSchedule', ...(t.value === undefined ? {} : { value: t.value }) }));
  return {
    // The kubelet registers with the NodeClaim's labels, as Karpenter's does. Nothing reads a managed-by label
    // on the Node (ownership is the NodeClaim's providerID and the instance's tags), so none is added.
    nodeLabels: claim.metadata.labels ?? {},
    nodeTaints: taints,
    ...(claim.metadata.annotations?.[minValuesRelaxedKey] === 'true' ? { minValuesRelaxed: true } : {}),
    // Karpenter asks whether the key is among the requests, whatever the amount.
    ...(Object.hasOwn(claim.spec.resources?.requests ?? {}, efaResource) ? { efaRequested: true } : {}),
    ...(partition === undefined ? {} : { placementPartition: partition }),
  };
}

const efaResource = 'vpc.amazonaws.com/efa';

/**
 * The partition a NodeClaim's `placement-group-partition` requirements allow, as Karpenter's launch template takes it
 * (EnsureAll): of the values every `In` allows and no `NotIn` excludes, the lowest in string order that is a number.
 * Without an `In` there is no partition to launch into (Karpenter would take a lone NotIn's first value: the one
 * partition the claim excludes).
 */
function requiredPartition(claim: NodeClaim): number | undefined {
  const on = claim.spec.requirements.filter((r) => r.key === wellKnown.placementGroupPartition);
  const sets = on.filter((r) => r.operator === 'In').map((r) => new Set(r.values ?? []));
  const excluded = new Set(on.filter((r) => r.operator === 'NotIn').flatMap((r) => r.values ?? []));
  const [first, ...rest] = sets;
  if (first === undefined) return undefined;
  const allowed = [...first].filter((v) => rest.every((s) => s.has(v)) && !excluded.has(v) && /^[0-9]+$/.test(v)).sort();
  return allowed[0] === undefined ? undefined : Number(allowed[0]);
}

/**
 * Launches the instance for a NodeClaim. An instance already tagged with this NodeClaim (a launch whose
 * result was lost to a crash) is adopted, never duplicated. Insufficient capacity marks the offerings that
 * failed unavailable (the cloud adapter does) and the next cheapest ones are tried at once.
 */
export async function launchInstance(deps: MaterializerDeps, target: { plan: VirtualNodePlan; pool: NodePool; claim: NodeClaim; claimIsNew: boolean }): Promise<LaunchedInstance> {
  const { plan, pool, claim } = target;
  const claimName = claim.metadata.name ?? '';
  // Only a NodeClaim from an earlier attempt can have an instance already (its result lost to a crash);
  // one created a moment ago cannot, which saves a DescribeInstances on every ordinary launch.
  const orphan = target.claimIsNew ? undefined : await findOrphan(deps, claimName);
  if (orphan !== undefined) return orphan;
  const resolved = await resolveNodeClass(deps, pool, claimName);
  const fromClaim = claimLaunchFields(claim);
  let lastError: unknown;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const choice = chooseOfferings(plan, pool.spec.template.spec.requirements, classCatalog(deps, pool, plan), deps.unavailableOfferings());
    if (choice.offerings.length === 0) break;
    try {
      return await deps.cloud.create({
        nodeClaimName: claimName, nodePoolName: plan.nodePool, nodeClass: resolved, offerings: choice.offerings, capacityType: choice.capacityType,
        ...fromClaim,
      });
    } catch (error) {
      if (!isInsufficientCapacityError(error)) throw error;
      lastError = error;
    }
  }
  await deps.nodeClaims.delete(claimName);
  throw noCapacity(claimName, plan, lastError);
}

/** The cause is always an insufficient-capacity error, so callers (the NodeClaim's Event) can tell why. */
function noCapacity(claimName: string, plan: VirtualNodePlan, lastError: unknown): Error {
  const why = lastError instanceof Error ? lastError.message : 'every planned offering is unavailable';
  return new Error(`launching nodeclaim ${claimName}: no capacity for any of ${String(plan.instanceTypes.length)} planned instance types (${why}); the NodeClaim was deleted and the pods will be planned again`, { cause: lastError ?? new InsufficientCapacityError(why, []) });
}
