import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import { conditionTypes, isConditionTrue, timestampMs } from '../../domain/api/status-conditions.js';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { parseResourceList } from '../../domain/resource-list.js';
import { planStaticClaim } from '../../domain/simulation/static-claim.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { VirtualNodePlan } from '../index.js';
import type { EventRecorder } from '../ports/events.js';
import type { NodeClaimStore } from '../ports/nodeclaim-store.js';
import { planFor } from '../state/claim-plan.js';
import type { ClusterState } from '../state/cluster-state.js';
import { typesForNodeClass } from '../state/node-class-capacities.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** How often the launch controller looks for NodeClaims nobody launches (Karpenter's launch reconciles on every change). */
export const claimLaunchPeriodMs = 5_000;

/** The launch path every plan takes, with the NodeClaim's own spec as the template. */
export interface TemplateLauncher {
  materialize(virtualNodeName: string, plan?: VirtualNodePlan, template?: NodePool): Promise<{ readonly nodeName: string }>;
}

export interface ClaimLaunchControllerOptions extends ControllerOptions {
  readonly state: ClusterState;
  readonly launcher: TemplateLauncher;
  readonly store: Pick<NodeClaimStore, 'delete'>;
  readonly instanceTypes: () => readonly InstanceType[];
  readonly unavailableOfferings: () => ReadonlySet<string>;
  readonly events: EventRecorder;
  /** How old an unlaunched NodeClaim must be before it is taken as one nobody else is launching (default 5 s). */
  readonly graceMs?: number;
  /** Time between passes (default 5 s). */
  readonly periodMs?: number;
}

/**
 * Karpenter's lifecycle launch: every NodeClaim is launched, whoever made it. nodesmith launches the NodeClaims it
 * plans as kube-scheduler binds to their virtual nodes, and a disruption command's or a static NodePool's as they
 * need them; this launches the rest: a NodeClaim a user applied (or another tool wrote), from its own spec (its
 * requirements, its EC2NodeClass, its taints, and only types whose allocatable holds its resource requests), through
 * the same launch path. A NodeClaim some plan or launch owns is left to it (the materializer launches each one once,
 * so a race ends in one launch); the liveness controller deletes one that never launches, as Karpenter's does.
 */
export class ClaimLaunchController extends OptionsController<ClaimLaunchControllerOptions> {
  readonly name = 'nodeclaim.launch';
  readonly #launching = new Set<string>();

  reconcile(): Promise<ReconcileResult> {
    const now = this.options.clock.now();
    for (const claim of this.options.state.nodeClaims.values()) if (this.#awaitsLaunch(claim, now)) this.#launch(claim);
    return Promise.resolve({ requeueAfterMs: this.options.periodMs ?? claimLaunchPeriodMs });
  }

  /** Launches in flight from here (each runs in the background: a launch takes seconds to minutes). */
  get launching(): number {
    return this.#launching.size;
  }

  #awaitsLaunch(claim: NodeClaim, now: number): boolean {
    const name = claim.metadata.name ?? '';
    if (!isUnlaunched(claim) || this.#launching.has(name) || this.options.state.plans.has(virtualNodeName(name))) return false;
    // A static NodePool's controller launches its own NodeClaims, and counts them.
    if (this.options.state.nodePools.get(claim.metadata.labels?.[wellKnown.nodePool] ?? '')?.spec.replicas !== undefined) return false;
    const created = timestampMs(claim.metadata.creationTimestamp);
    return created !== undefined && now - created >= (this.options.graceMs ?? 5_000);
  }

  #launch(claim: NodeClaim): void {
    const name = claim.metadata.name ?? '';
    const log = this.log;
    const template = templateOf(claim);
    const catalog = this.options.instanceTypes();
    const planned = planStaticClaim({
      pool: template, name, catalog, unavailable: this.options.unavailableOfferings(),
      sized: typesForNodeClass(this.options.state, claim.spec.nodeClassRef.name, catalog),
      requests: parseResourceList(claim.spec.resources?.requests),
    });
    this.#launching.add(name);
    const run = planned === undefined
      ? this.#refuse(claim)
      : this.options.launcher.materialize(virtualNodeName(name), planFor(planned, name), template).then(
        ({ nodeName }) => { log.info({ component: this.name, nodeClaim: name, node: nodeName }, 'launched nodeclaim made outside nodesmith\'s plans'); },
        (error: unknown) => { log.warn({ component: this.name, nodeClaim: name, err: error }, 'nodeclaim launch failed; tried again on a later pass'); },
      );
    void run.finally(() => this.#launching.delete(name));
  }

  /** No type can be the node (Karpenter: every requested type unavailable): said on the claim, and the claim goes. */
  async #refuse(claim: NodeClaim): Promise<void> {
    const name = claim.metadata.name ?? '';
    this.options.events.record({ kind: 'NodeClaim', name, apiVersion: 'karpenter.sh/v1', ...(claim.metadata.uid === undefined ? {} : { uid: claim.metadata.uid }) }, 'Warning', 'InsufficientCapacityError',
      'no instance type with an available offering satisfies the NodeClaim\'s requirements and holds its resource requests; the NodeClaim is deleted');
    try {
      await this.options.store.delete(name);
    } catch (error) {
      this.log.warn({ component: this.name, nodeClaim: name, err: error }, 'could not delete a nodeclaim no instance type can launch');
    }
  }
}

const isUnlaunched = (claim: NodeClaim): boolean => claim.metadata.deletionTimestamp === undefined
  && (claim.status?.providerID ?? '') === '' && !isConditionTrue(claim, conditionTypes.launched);

/** The NodeClaim's spec as a NodePool template, named after the NodePool it says it belongs to (or none). */
function templateOf(claim: NodeClaim): NodePool {
  const { requirements, nodeClassRef, taints, startupTaints, expireAfter, terminationGracePeriod } = claim.spec;
  const spec = { requirements, nodeClassRef, ...(taints === undefined ? {} : { taints }), ...(startupTaints === undefined ? {} : { startupTaints }),
    ...(expireAfter === undefined ? {} : { expireAfter }), ...(terminationGracePeriod === undefined ? {} : { terminationGracePeriod }) };
  const labels = Object.fromEntries(Object.entries(claim.metadata.labels ?? {}).filter(([key]) => key !== wellKnown.nodePool));
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: claim.metadata.labels?.[wellKnown.nodePool] ?? '' },
    spec: { template: { metadata: { labels, ...(claim.metadata.annotations === undefined ? {} : { annotations: claim.metadata.annotations }) }, spec } },
  };
}
