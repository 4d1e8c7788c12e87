import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import { isNodeClassNotReadyError } from '../../domain/cloud/errors.js';
import {
  instanceProfileName,
  instanceProfilePath,
  instanceProfileTags,
  type InstanceProfileProvider,
} from '../../domain/cloud/instance-profiles.js';
import { type ReconcileResult } from '../runtime/controller-runner.js';
import { withCondition, type ConditionUpdate } from '../../domain/api/status-conditions.js';
import { nodeClassFinalizer } from '../../domain/karpenter-keys.js';
import type { NodeClassWriter } from '../ports/nodeclass-writer.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** Karpenter's condition type for this step of EC2NodeClass readiness. */
export const instanceProfileReady = 'InstanceProfileReady';

/** The cluster state the controller reads (ClusterState satisfies it). */
export interface NodeClassView {
  readonly nodeClasses: ReadonlyMap<string, EC2NodeClass>;
  readonly nodeClaims: ReadonlyMap<string, NodeClaim>;
}

export interface InstanceProfileControllerOptions extends ControllerOptions {
  readonly view: NodeClassView;
  readonly writer: NodeClassWriter;
  readonly profiles: InstanceProfileProvider;
  readonly cluster: string;
  readonly region: string;
}

type Spec = EC2NodeClass['spec'] & { readonly role?: string; readonly instanceProfile?: string };

/** One pass's outcome per NodeClass: done, or come back soon (a deletion waiting, a failure). */
type Outcome = 'done' | 'retry';

/** How often the instance profiles are reconciled when none failed (5 s after a failure). */
export const instanceProfilePeriodMs = 60_000;

/**
 * Karpenter's nodeclass instance-profile step and its termination finalizer. With `role`, an
 * instance profile is created through IAM (named, tagged and pathed as Karpenter does, the role
 * attached) and recorded in status.instanceProfile; with `instanceProfile`, the given profile is
 * checked to exist. A deleted EC2NodeClass keeps its finalizer until no NodeClaim refers to it;
 * then the profile it created is deleted and the finalizer released.
 */
export class InstanceProfileController extends OptionsController<InstanceProfileControllerOptions> {
  readonly name = 'nodeclass.instanceprofile';

  async reconcile(): Promise<ReconcileResult> {
    let retry = false;
    for (const nodeClass of [...this.options.view.nodeClasses.values()]) {
      const name = nodeClass.metadata.name ?? '';
      try {
        const outcome = nodeClass.metadata.deletionTimestamp === undefined ? await this.#ensure(nodeClass) : await this.#finalize(nodeClass);
        retry ||= outcome === 'retry';
      } catch (e: unknown) {
        retry = true;
        this.log.warn({ component: this.name, nodeClass: name, err: e }, 'reconciling instance profile failed');
      }
    }
    // The profile check itself is cached for 15 minutes by the provider, so a minute costs nothing.
    return { requeueAfterMs: retry ? 5_000 : instanceProfilePeriodMs };
  }

  async #ensure(nodeClass: EC2NodeClass): Promise<Outcome> {
    const name = nodeClass.metadata.name ?? '';
    if (!(nodeClass.metadata.finalizers ?? []).includes(nodeClassFinalizer)) await this.options.writer.addFinalizer(name, nodeClassFinalizer);
    const spec = nodeClass.spec as Spec;
    const result = spec.role !== undefined ? await this.#ensureManaged(nodeClass, spec.role) : await this.#checkGiven(spec.instanceProfile ?? '');
    await this.#writeStatus(nodeClass, result);
    return result.condition.status === 'True' ? 'done' : 'retry';
  }

  /** Writes only a change, so a steady NodeClass costs no API call per pass. */
  async #writeStatus(nodeClass: EC2NodeClass, { profile, condition }: { profile?: string; condition: ConditionUpdate }): Promise<void> {
    if ((profile === undefined || nodeClass.status?.instanceProfile === profile) && sameCondition(nodeClass, condition)) return;
    const conditions = withCondition(nodeClass.status?.conditions ?? [], condition, this.options.clock.now());
    await this.options.writer.patchStatus(nodeClass.metadata.name ?? '', { ...(profile === undefined ? {} : { instanceProfile: profile }), conditions });
  }

  async #ensureManaged(nodeClass: EC2NodeClass, role: string): Promise<{ profile?: string; condition: ConditionUpdate }> {
    const { cluster, region } = this.options;
    const nodeClassName = nodeClass.metadata.name ?? '';
    const profile = instanceProfileName(cluster, region, { name: nodeClassName, uid: nodeClass.metadata.uid ?? '' });
    const roleName = role.split('/').at(-1) ?? role;
    const current = await this.options.profiles.get(profile);
    try {
      if (current?.roles.length !== 1 || current.roles[0] !== roleName) {
        await this.options.profiles.ensure({
          name: profile, role,
          tags: instanceProfileTags(cluster, region, { name: nodeClassName, ...(nodeClass.spec.tags === undefined ? {} : { tags: nodeClass.spec.tags }) }),
          path: instanceProfilePath(cluster, region, nodeClass.metadata.uid ?? ''),
        });
        this.log.info({ component: this.name, nodeClass: nodeClassName, instanceProfile: profile, role }, 'created instance profile');
      }
      return { profile, condition: { type: instanceProfileReady, status: 'True', reason: instanceProfileReady } };
    } catch (e: unknown) {
      if (!isNodeClassNotReadyError(e)) throw e;
      return { condition: { type: instanceProfileReady, status: 'False', reason: 'InstanceProfileCreationFailed', message: e.message } };
    }
  }

  async #checkGiven(profile: string): Promise<{ profile?: string; condition: ConditionUpdate }> {
    if ((await this.options.profiles.get(profile)) !== undefined) {
      return { profile, condition: { type: instanceProfileReady, status: 'True', reason: instanceProfileReady } };
    }
    return { condition: { type: instanceProfileReady, status: 'False', reason: 'InstanceProfileNotFound', message: `instance profile ${profile} does not exist` } };
  }

  async #finalize(nodeClass: EC2NodeClass): Promise<Outcome> {
    const name = nodeClass.metadata.name ?? '';
    if (!(nodeClass.metadata.finalizers ?? []).includes(nodeClassFinalizer)) return 'done';
    const claims = [...this.options.view.nodeClaims.values()].filter((c) => c.spec.nodeClassRef.name === name);
    if (claims.length > 0) {
      this.log.debug({ component: this.name, nodeClass: name, nodeClaims: claims.length }, 'waiting for nodeclaims before deleting ec2nodeclass');
      return 'retry';
    }
    // Only the profile we would have created: a profile given by the user is never ours to delete.
    if ((nodeClass.spec as Spec).role !== undefined) {
      const profile = instanceProfileName(this.options.cluster, this.options.region, { name, uid: nodeClass.metadata.uid ?? '' });
      await this.options.profiles.delete(profile);
      this.log.info({ component: this.name, nodeClass: name, instanceProfile: profile }, 'deleted instance profile');
    }
    await this.options.writer.removeFinalizer(name, nodeClassFinalizer);
    return 'done';
  }
}

function sameCondition(nodeClass: EC2NodeClass, update: ConditionUpdate): boolean {
  const current = nodeClass.status?.conditions?.find((c) => c.type === update.type);
  return current?.status === update.status && current.reason === update.reason && current.message === (update.message ?? '');
}
