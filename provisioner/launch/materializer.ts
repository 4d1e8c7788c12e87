import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { LaunchedInstance } from '../../domain/cloud/cloud-provider.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { toQuantities } from '../../domain/resource-list.js';
import { isInsufficientCapacityError, isNodeClassNotReadyError } from '../../domain/cloud/errors.js';
import type { EventTarget } from '../ports/events.js';
import type { Materializer, VirtualNodePlan } from '../index.js';
import { planText } from '../state/plan-annotation.js';
import { launchInstance } from './launch-instance.js';
import type { MaterializerDeps } from './materializer-deps.js';
import { launchedLabels, nodeClaimFor, nodeClaimNameOf, nodeResources, realNodeFor } from './nodeclaim-objects.js';
import { plannedRequests } from './planned-requests.js';
import { typeForNodeClass } from '../state/node-class-capacities.js';
import { planNodeAnnotation } from '../../domain/product-keys.js';

const rememberMs = 10 * 60_000;

/**
 * Turns a virtual node into a real one, once: concurrent binds to the same virtual node share one launch,
 * and a later call (a retried bind, a restart) finds the NodeClaim or the tagged instance and adopts it
 * instead of launching again. NodeClaim first, so the instance is never without an owner the GC respects.
 */
export class PlanMaterializer implements Materializer {
  readonly #deps: MaterializerDeps;
  readonly #inFlight = new Map<string, Promise<{ nodeName: string }>>();
  readonly #done = new Map<string, { nodeName: string; at: number }>();

  constructor(deps: MaterializerDeps) {
    this.#deps = deps;
  }

  /**
   * `plan` launches a plan that is not published as a virtual node: a disruption command's replacement, which only
   * the command needs and which kube-scheduler must not offer to other pods before it exists. `template` launches it
   * from that NodePool rather than the one the plan names: a NodeClaim made by hand is launched from its own spec.
   */
  materialize(virtualNodeName: string, plan?: VirtualNodePlan, template?: NodePool): Promise<{ readonly nodeName: string }> {
    const done = this.#done.get(virtualNodeName);
    if (done !== undefined && this.#deps.clock.now() - done.at < rememberMs) return Promise.resolve({ nodeName: done.nodeName });
    const running = this.#inFlight.get(virtualNodeName);
    if (running !== undefined) return running;
    const launch = this.#materialize(virtualNodeName, plan, template).finally(() => { this.#inFlight.delete(virtualNodeName); });
    this.#inFlight.set(virtualNodeName, launch);
    return launch;
  }

  async #materialize(virtualNodeName: string, unpublished: VirtualNodePlan | undefined, template: NodePool | undefined): Promise<{ nodeName: string }> {
    if (this.#deps.isLeader?.() === false) throw new Error(`materializing ${virtualNodeName}: this replica is not the leader, and only the leader launches`);
    const started = this.#deps.clock.now();
    const claimName = nodeClaimNameOf(virtualNodeName);
    const existing = unlessDeleting(virtualNodeName, await this.#deps.nodeClaims.get(claimName));
    const adopted = existing?.status?.providerID === undefined ? undefined : await this.#adopt(existing);
    if (adopted !== undefined) return this.#finish(virtualNodeName, adopted);
    const { plan, pool, nodeClass } = this.#planToLaunch(virtualNodeName, unpublished, template);
    const claim = existing ?? (await this.#deps.nodeClaims.create(nodeClaimFor(plan, pool, plannedRequests(this.#deps.state, plan), nodeClass)));
    const instance = await launchInstance(this.#deps, { plan, pool, claim, claimIsNew: existing === undefined }).catch(async (error: unknown) => {
      const reason = launchFailureReason(error);
      this.#deps.events.record(claimTarget(claim), 'Warning', reason, error instanceof Error ? error.message : String(error));
      // As Karpenter does: nothing was launched, and the pods are planned again once the class is ready. A claim
      // kept instead would outlive a plan that is pruned meanwhile, as a NodeClaim that never launches.
      if (reason === 'NodeClassNotReady') await this.#deleteUnlaunched(claimName, error);
      // No planned offering has capacity (each is now remembered unavailable): kept, the plan would be launched into
      // the same offerings again and again until they recover, its pods planned on nothing else. Withdrawn, the next
      // pass plans them onto offerings that have capacity, as Karpenter's provisioner does after an ICE.
      if (reason === 'InsufficientCapacityError' && unpublished === undefined) await this.#withdraw(virtualNodeName);
      throw error;
    });
    const type = this.#launchedType(claim, instance.instanceType);
    // Labels before the Launched condition: drift reads a Launched NodeClaim's labels against the NodePool's
    // requirements, and a NodeClaim seen Launched without them (kubernetes.io/os, the zone …) would look drifted.
    await this.#deps.nodeClaims.addLabels(claimName, launchedLabels(instance, type));
    const launched = await this.#deps.nodeClaims.patchStatus(claimName, launchedStatus(instance, type, this.#deps.clock.now()));
    if (launched === undefined) {
      // Its termination found no instance to release, so none would: terminated now rather than left to the orphan
      // collector's next pass.
      const released = await this.#deps.cloud.delete(instance.providerID).then(
        () => 'it was terminated',
        (e: unknown) => `terminating it failed (${e instanceof Error ? e.message : String(e)}), and the orphan instance collector will`,
      );
      throw new Error(`materializing ${virtualNodeName}: NodeClaim ${claimName} was deleted while its instance ${instance.instanceId} launched; ${released}`);
    }
    const nodeName = await this.#createRealNode(instance, claim, type);
    this.#deps.events.record(claimTarget(claim), 'Normal', 'Launched',
      `launched ${instance.instanceType} (${instance.capacityType}) in ${instance.zone} as ${instance.instanceId} for virtual node ${virtualNodeName}`);
    this.#deps.onLaunched?.(instance, plan, (this.#deps.clock.now() - started) / 1000);
    return this.#finish(virtualNodeName, nodeName);
  }

  /** The plan behind the virtual node (or the unpublished one), its NodePool and EC2NodeClass as the model has them. */
  #planToLaunch(virtualNodeName: string, unpublished: VirtualNodePlan | undefined, template: NodePool | undefined): { plan: VirtualNodePlan; pool: NodePool; nodeClass: EC2NodeClass | undefined } {
    const plan = this.#deps.state.plans.get(virtualNodeName) ?? unpublished;
    if (plan === undefined) throw new Error(`materializing ${virtualNodeName}: no such virtual node in the current plan (it was pruned or already launched); kube-scheduler will retry the pod against the nodes that exist now`);
    const pool = template ?? this.#deps.state.nodePools.get(plan.nodePool);
    if (pool === undefined) throw new Error(`materializing ${virtualNodeName}: NodePool ${plan.nodePool} no longer exists`);
    return { plan, pool, nodeClass: this.#deps.state.nodeClasses.get(pool.spec.template.spec.nodeClassRef.name) };
  }

  async #withdraw(virtualNodeName: string): Promise<void> {
    await this.#deps.nodes.delete(virtualNodeName);
    this.#deps.state.removePlan(virtualNodeName);
  }

  async #deleteUnlaunched(claimName: string, launchError: unknown): Promise<void> {
    try {
      await this.#deps.nodeClaims.delete(claimName);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`${launchError instanceof Error ? launchError.message : String(launchError)}; deleting the unlaunched NodeClaim ${claimName} failed too: ${why}`, { cause: error });
    }
  }

  /** The launched type as the claim's EC2NodeClass sizes it: the capacity the kubelet will report. */
  #launchedType(claim: NodeClaim, instanceType: string): InstanceType | undefined {
    const type = this.#deps.catalog().get(instanceType);
    return type === undefined ? undefined : typeForNodeClass(this.#deps.state, claim.spec.nodeClassRef.name, type);
  }

  /** A NodeClaim that already launched: its real Node is named after the instance. */
  async #adopt(claim: NodeClaim): Promise<string | undefined> {
    const providerID = claim.status?.providerID ?? '';
    const instanceId = providerID.split('/').at(-1) ?? '';
    if (this.#deps.state.nodes.has(instanceId)) return instanceId;
    try {
      const instance = await this.#deps.cloud.get(providerID);
      return await this.#createRealNode(instance, claim, this.#launchedType(claim, instance.instanceType));
    } catch {
      return undefined;
    }
  }

  async #createRealNode(instance: LaunchedInstance, claim: NodeClaim, type: InstanceType | undefined): Promise<string> {
    const node = realNodeFor(instance, claim, type);
    // Already there means a previous attempt (or the kubelet) created it; the name is all a bind needs.
    await this.#deps.nodes.createIfAbsent(node);
    return node.metadata.name ?? instance.instanceId;
  }

  /**
   * The virtual node stays until the pods planned for it are bound: the real node is not Ready for a while
   * (no kubelet yet, and kube-controller-manager's not-ready taint), and without the virtual node those pods
   * would look unschedulable and be planned onto yet another launch. Its room is emptied so that only they
   * are admitted, and their binds land here; the planner removes it once none of them waits.
   */
  async #finish(virtualNodeName: string, nodeName: string): Promise<{ nodeName: string }> {
    this.#done.set(virtualNodeName, { nodeName, at: this.#deps.clock.now() });
    for (const [name, entry] of this.#done) if (this.#deps.clock.now() - entry.at > rememberMs) this.#done.delete(name);
    const plan = this.#deps.state.plans.get(virtualNodeName);
    if (plan !== undefined && plan.materializedNode !== nodeName) {
      const materialized: VirtualNodePlan = { ...plan, materializedNode: nodeName, room: {} };
      await this.#deps.nodes.annotate(virtualNodeName, planNodeAnnotation, planText(materialized));
      this.#deps.state.upsertPlan(materialized);
    }
    return { nodeName };
  }
}

/**
 * A refused launch deletes its NodeClaim, which stays until its finalizer is released; launching into it then
 * would give an instance that goes with it, and its pods would need another launch. The retry comes later.
 */
function unlessDeleting(virtualNodeName: string, existing: NodeClaim | undefined): NodeClaim | undefined {
  if (existing?.metadata.deletionTimestamp === undefined || existing.status?.providerID !== undefined) return existing;
  throw new Error(`materializing ${virtualNodeName}: NodeClaim ${existing.metadata.name ?? ''} is being deleted after a failed launch; the launch is tried again once it is gone`);
}

const claimTarget = (claim: NodeClaim): EventTarget => ({ kind: 'NodeClaim', name: claim.metadata.name ?? '', apiVersion: 'karpenter.sh/v1', ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) });

/** Karpenter's NodeClaim event reasons for a failed launch, by the error or the cause it wraps. */
export function launchFailureReason(error: unknown): 'InsufficientCapacityError' | 'NodeClassNotReady' | 'LaunchFailed' {
  const cause = error instanceof Error ? error.cause : undefined;
  if (isInsufficientCapacityError(error) || isInsufficientCapacityError(cause)) return 'InsufficientCapacityError';
  if (isNodeClassNotReadyError(error) || isNodeClassNotReadyError(cause)) return 'NodeClassNotReady';
  return 'LaunchFailed';
}

function resourceQuantities(resources: ReturnType<typeof nodeResources>): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  return { capacity: toQuantities(resources.capacity), allocatable: toQuantities(resources.allocatable) };
}

function launchedStatus(instance: LaunchedInstance, type: InstanceType | undefined, now: number): NonNullable<NodeClaim['status']> {
  const time = new Date(now).toISOString();
  return {
    providerID: instance.providerID,
    imageID: instance.imageId,
    nodeName: instance.instanceId,
    ...(type === undefined ? {} : resourceQuantities(nodeResources(instance, type))),
    conditions: [{ type: 'Launched', status: 'True', reason: 'Launched', message: '', lastTransitionTime: time }],
  };
}
