import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { EC2NodeClassStatus } from '../../domain/api/ec2nodeclass-status-schema.js';
import type { NodeClassResolver } from '../../domain/cloud/cloud-provider.js';
import { isNodeClassNotReadyError, type NodeClassPart } from '../../domain/cloud/errors.js';
import type { AmiVariant, ResolvedNodeClass } from '../../domain/cloud/node-class.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { type ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { nodeClassSpecOf } from '../state/node-class-spec.js';
import { nodeClassCapacityOf } from '../../domain/instance-types/node-class-types.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { describeOutcome, kubeletExpressionOutcome } from '../../domain/instance-types/kubelet-expression-outcome.js';
import { withCondition, type Condition, type ConditionUpdate } from '../../domain/api/status-conditions.js';
import { instanceProfileReady } from './instance-profile-controller.js';
import type { NodeClassWriter } from '../ports/nodeclass-writer.js';
import type { ResolvedPlacementGroups } from '../state/placement-groups.js';
import { OptionsController, type ControllerOptions } from '../runtime/options-controller.js';

/** Karpenter's EC2NodeClass condition types, one per dependency, and the root that sums them. */
export const nodeClassConditions = {
  // What Karpenter checks in its controller, not its CRD: here, that the AMI family can write the class's kubelet.
  validation: 'ValidationSucceeded',
  subnets: 'SubnetsReady',
  securityGroups: 'SecurityGroupsReady',
  amis: 'AMIsReady',
  // Always present, True for a class with no placementGroupSelector, as Karpenter's placement group reconciler sets it.
  placementGroup: 'PlacementGroupReady',
  instanceProfile: instanceProfileReady,
  ready: 'Ready',
} as const;

const resolvedParts = ['validation', 'subnets', 'securityGroups', 'amis', 'placementGroup'] as const;

/** How often a healthy EC2NodeClass is resolved again (new AMIs, deleted subnets), and a failing one. */
export const nodeClassStatusPeriodMs = 5 * 60_000;
const retryMs = 30_000;

export interface NodeClassStatusControllerOptions extends ControllerOptions {
  /** The classes, and where the placement group each selector resolved to is kept for the planner (state/placement-groups.ts). */
  readonly view: { readonly nodeClasses: ReadonlyMap<string, EC2NodeClass>; readonly placementGroups?: Pick<ResolvedPlacementGroups, 'record'> };
  readonly resolver: NodeClassResolver;
  readonly writer: NodeClassWriter;
  readonly events: EventRecorder;
  /**
   * Conditions other controllers write that Ready also waits for, beside the instance profile's: the
   * CapacityReservationsReady of reservation discovery while the ReservedCapacity gate is on, as in Karpenter.
   */
  readonly alsoReadyWhen?: readonly string[];
  /** The catalog, to evaluate a class's kubelet expressions on every type (KubeletExpressionsResolved). */
  readonly instanceTypes?: () => readonly InstanceType[];
}

/**
 * Whether a class's kubelet expressions (aws provider #9326) resolve on every type: written only for a class with
 * expressions, and not among the conditions Ready sums, since the types they resolve on still launch. Where they
 * resolve on none, ValidationSucceeded is False instead (KubeletExpressionEvaluationFailed), as Karpenter marks a
 * class whose expressions fail on any type.
 */
export const kubeletExpressionsCondition = 'KubeletExpressionsResolved';

/**
 * Karpenter's EC2NodeClass status: the subnets, security groups and AMIs the selectors resolve to, a condition
 * for each, and `Ready` once they and the instance profile are all ready. The planner launches only for NodePools
 * whose EC2NodeClass is not `Ready=False` (state/snapshot.ts), so a selector that matches nothing is an
 * error on the EC2NodeClass and an Event, not a stream of failed launches.
 */
export class NodeClassStatusController extends OptionsController<NodeClassStatusControllerOptions> {
  readonly name = 'nodeclass.status';

  async reconcile(): Promise<ReconcileResult> {
    let failing = false;
    for (const nodeClass of [...this.options.view.nodeClasses.values()]) {
      if (nodeClass.metadata.deletionTimestamp !== undefined) continue;
      try {
        failing = !(await this.#reconcileOne(nodeClass)) || failing;
      } catch (e: unknown) {
        failing = true;
        this.log.warn({ component: this.name, nodeClass: nodeClass.metadata.name, err: e }, 'resolving ec2nodeclass status failed');
      }
    }
    return { requeueAfterMs: failing ? retryMs : nodeClassStatusPeriodMs };
  }

  /** Resolves one EC2NodeClass and writes what changed; true when it is Ready. */
  async #reconcileOne(nodeClass: EC2NodeClass): Promise<boolean> {
    const { resolved, failure } = await this.#resolve(nodeClass);
    this.#recordPlacementGroup(nodeClass.metadata.name ?? '', resolved, failure);
    const updates = [...conditionUpdates(nodeClass, failure, this.options.alsoReadyWhen ?? []), ...this.#expressionCondition(nodeClass)];
    const conditions = updates.reduce<Condition[]>((list, update) => withCondition(list, update, this.options.clock.now()), [...(nodeClass.status?.conditions ?? [])]);
    const status: Partial<EC2NodeClassStatus> = { ...(resolved === undefined ? {} : resolvedStatus(resolved)), conditions };
    if (changed(nodeClass.status, status)) {
      await this.options.writer.patchStatus(nodeClass.metadata.name ?? '', status);
      this.#reportNotReady(nodeClass, updates.find((u) => u.type === nodeClassConditions.ready));
    }
    return failure === undefined;
  }

  async #resolve(nodeClass: EC2NodeClass): Promise<{ resolved?: ResolvedNodeClass; failure?: Failure }> {
    // A class admitted before the webhook refused its kubelet (or with the webhook off) stays NotReady, as Karpenter
    // keeps it, instead of launching nodes whose kubelet lacks a setting the user asked for. The refusal is the one the
    // class's sizing carries (its types launch nothing either), so status and planner cannot tell different stories.
    const refusal = nodeClassCapacityOf(nodeClass).kubeletRefusal;
    if (refusal !== undefined) return { failure: { part: 'validation', message: refusal, reason: 'KubeletConfigurationRefused' } };
    const outcome = this.#expressionOutcome(nodeClass);
    if (outcome !== undefined && outcome.types > 0 && outcome.refused.length === outcome.types) {
      return { failure: { part: 'validation', message: describeOutcome(outcome), reason: 'KubeletExpressionEvaluationFailed' } };
    }
    try {
      return { resolved: await this.options.resolver.resolve(nodeClassSpecOf(nodeClass)) };
    } catch (e: unknown) {
      // Anything but "not ready" (throttling, a network error) says nothing about the selectors: try again later.
      if (!isNodeClassNotReadyError(e)) throw e;
      return { failure: { part: e.part, message: e.message, ...(e.reason === undefined ? {} : { reason: e.reason }) } };
    }
  }

  #expressionOutcome(nodeClass: EC2NodeClass): ReturnType<typeof kubeletExpressionOutcome> {
    const catalog = this.options.instanceTypes?.();
    return catalog === undefined ? undefined : kubeletExpressionOutcome(catalog, nodeClassCapacityOf(nodeClass));
  }

  /** KubeletExpressionsResolved for a class with expressions: False naming the types they fail on. */
  #expressionCondition(nodeClass: EC2NodeClass): ConditionUpdate[] {
    const outcome = this.#expressionOutcome(nodeClass);
    if (outcome === undefined) return [];
    if (outcome.refused.length === 0) return [{ type: kubeletExpressionsCondition, status: 'True', reason: kubeletExpressionsCondition }];
    return [{ type: kubeletExpressionsCondition, status: 'False', reason: 'KubeletExpressionEvaluationFailed', message: describeOutcome(outcome) }];
  }

  /** The group the selector resolved to, for the planner; a selector that resolved to none leaves no group behind. */
  #recordPlacementGroup(name: string, resolved: ResolvedNodeClass | undefined, failure: Failure | undefined): void {
    if (resolved !== undefined) this.options.view.placementGroups?.record(name, resolved.placementGroup);
    else if (failure?.part === 'placementGroup') this.options.view.placementGroups?.record(name, undefined);
  }

  /** One Warning Event when the class turns not ready, with the reason the condition gives. */
  #reportNotReady(nodeClass: EC2NodeClass, ready: ConditionUpdate | undefined): void {
    const was = nodeClass.status?.conditions?.find((c) => c.type === nodeClassConditions.ready)?.status;
    if (ready?.status !== 'False' || was === 'False') return;
    const { name = '', uid } = nodeClass.metadata;
    this.options.events.record({ kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', name, ...(uid === undefined ? {} : { uid }) }, 'Warning', 'NodeClassNotReady', ready.message ?? '');
  }
}

interface Failure {
  readonly part: NodeClassPart | undefined;
  readonly message: string;
  /** Karpenter's condition reason, when not the part's `…NotFound`. */
  readonly reason?: string;
}

function resolvedStatus(resolved: ResolvedNodeClass): Partial<EC2NodeClassStatus> {
  return {
    subnets: resolved.subnets.map((s) => ({ id: s.id, zone: s.zone, ...(s.zoneId === undefined ? {} : { zoneID: s.zoneId }) })),
    securityGroups: resolved.securityGroups.map((g) => ({ id: g.id, name: g.name })),
    amis: resolved.amis.map((a) => ({ id: a.id, name: a.name, requirements: [{ key: wellKnown.arch, operator: 'In', values: [a.architecture] }, ...variantRequirements[a.variant ?? 'any']] })),
  };
}

/** The instance types each image variant serves, as status.amis[].requirements says (Karpenter's Variant.Requirements). */
const variantRequirements: Readonly<Record<AmiVariant | 'any', readonly { key: string; operator: 'Exists' | 'DoesNotExist' }[]>> = {
  any: [],
  standard: [{ key: wellKnown.instanceAcceleratorCount, operator: 'DoesNotExist' }, { key: wellKnown.instanceGpuCount, operator: 'DoesNotExist' }],
  nvidia: [{ key: wellKnown.instanceGpuCount, operator: 'Exists' }],
  neuron: [{ key: wellKnown.instanceAcceleratorCount, operator: 'Exists' }],
};

/**
 * The condition for each resolved part, then Ready. The resolver stops at the first part that fails, so the
 * parts after it keep what they had; the instance profile's condition, and the others Ready waits for, are their own
 * controllers' and are only read.
 */
function conditionUpdates(nodeClass: EC2NodeClass, failure: Failure | undefined, others: readonly string[]): ConditionUpdate[] {
  const current = nodeClass.status?.conditions ?? [];
  const failedAt = failure === undefined ? resolvedParts.length : resolvedParts.indexOf(failure.part as (typeof resolvedParts)[number]);
  const updates: ConditionUpdate[] = [];
  for (const [i, part] of resolvedParts.entries()) {
    const type = nodeClassConditions[part];
    if (i < failedAt) updates.push({ type, status: 'True', reason: type });
    else if (i === failedAt && failure !== undefined) updates.push(failedCondition(type, failure));
  }
  const after = updates.reduce<readonly Pick<Condition, 'type' | 'status' | 'message'>[]>((list, u) => [...list.filter((c) => c.type !== u.type), { type: u.type, status: u.status, message: u.message ?? '' }], current);
  const notReady = [...resolvedParts.map((p) => nodeClassConditions[p]), nodeClassConditions.instanceProfile, ...others]
    .map((type) => after.find((c) => c.type === type) ?? { type, status: 'Unknown' as const, message: 'not resolved yet' })
    .filter((c) => c.status !== 'True');
  // A failure outside the parts (credentials refused) makes the class not ready as a whole.
  if (failure !== undefined && failedAt < 0) notReady.push({ type: nodeClassConditions.ready, status: 'False', message: failure.message });
  const message = notReady.map((c) => `${c.type}=${c.status}${c.message === '' ? '' : `: ${c.message}`}`).join('; ');
  // As operatorpkg's root condition: False when a dependent is False; Unknown while one is only not known yet (the
  // instance profile's controller has not written its condition), which neither gates launches nor raises an Event.
  if (notReady.length === 0) updates.push({ type: nodeClassConditions.ready, status: 'True', reason: 'Ready' });
  else if (notReady.some((c) => c.status === 'False')) updates.push({ type: nodeClassConditions.ready, status: 'False', reason: 'UnhealthyDependents', message });
  else updates.push({ type: nodeClassConditions.ready, status: 'Unknown', reason: 'AwaitingReconciliation', message });
  return updates;
}

/** A part's False condition: Karpenter's reason for the failure, else the part's `…NotFound`. */
function failedCondition(type: string, failure: Failure): ConditionUpdate {
  return { type, status: 'False', reason: failure.reason ?? `${type.replace(/Ready$/, '')}NotFound`, message: failure.message };
}

/** Only a change is written, so a steady EC2NodeClass costs no API call per pass. */
function changed(status: EC2NodeClassStatus | undefined, next: Partial<EC2NodeClassStatus>): boolean {
  const comparable = (s: Partial<EC2NodeClassStatus> | undefined): string => JSON.stringify({
    subnets: s?.subnets, securityGroups: s?.securityGroups, amis: s?.amis,
    conditions: [...(s?.conditions ?? [])].map((c) => [c.type, c.status, c.reason, c.message]).sort(),
  });
  return comparable({ ...status, ...next }) !== comparable(status);
}
