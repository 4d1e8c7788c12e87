import type { NodeOverlay } from '../../domain/api/nodeoverlay-schema.js';
import { validateNodeOverlay } from '../../domain/api/nodeoverlay-validation.js';
import { formatProblem } from '../../domain/api/problem.js';
import { compareStrings } from '../../domain/compare.js';
import type { Clock } from '../../domain/clock.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import { OptionsController } from '../runtime/options-controller.js';
import type { NodeOverlayStatusWriter } from '../ports/status-writers.js';
import { sameConditions, withCondition, type Condition, type ConditionUpdate } from '../../domain/api/status-conditions.js';

/** Karpenter's NodeOverlay condition types: ValidationSucceeded makes up Ready. */
export const nodeOverlayConditionTypes = { validationSucceeded: 'ValidationSucceeded', ready: 'Ready' } as const;

/** Where the overlays go once known: the priced catalog (PricedInstanceTypes). */
export interface OverlayTarget {
  useOverlays(overlays: readonly NodeOverlay[]): void;
  overlayVerdicts(): ReadonlyMap<string, { readonly applied: boolean; readonly message?: string }>;
}

/**
 * The NodeOverlays of the cluster, fed by their informer (started only with the NodeOverlay gate on). Every change
 * is applied to the priced catalog at once, so the next plan prices with it; the informer syncs before anything
 * plans, so the first plan already does. Overlays that fail validation (stored before the webhook ran, or with
 * the webhook bypassed) are kept out, as Karpenter's runtime validation keeps them out.
 */
export class NodeOverlays {
  readonly #objects = new Map<string, NodeOverlay>();
  readonly #listeners = new Set<() => void>();
  #target: OverlayTarget | undefined;

  readonly handlers = {
    upsert: (overlay: NodeOverlay): void => { this.#objects.set(overlay.metadata.name ?? '', overlay); this.#changed(); },
    remove: (ref: { readonly metadata: { readonly name?: string } }): void => { this.#objects.delete(ref.metadata.name ?? ''); this.#changed(); },
  };

  /** From now on every change goes to the target; it gets the current overlays now. */
  applyTo(target: OverlayTarget): void {
    this.#target = target;
    target.useOverlays(this.valid());
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /** Every overlay, by name. */
  all(): readonly NodeOverlay[] {
    return [...this.#objects.values()].sort((a, b) => compareStrings(a.metadata.name ?? '', b.metadata.name ?? ''));
  }

  valid(): readonly NodeOverlay[] {
    return this.all().filter((o) => validateNodeOverlay(o).length === 0);
  }

  #changed(): void {
    this.#target?.useOverlays(this.valid());
    for (const listener of this.#listeners) listener();
  }
}

function validationOf(overlay: NodeOverlay, target: OverlayTarget): ConditionUpdate {
  const problems = validateNodeOverlay(overlay);
  const type = nodeOverlayConditionTypes.validationSucceeded;
  if (problems.length > 0) return { type, status: 'False', reason: 'RuntimeValidation', message: problems.map(formatProblem).join('; ') };
  const verdict = target.overlayVerdicts().get(overlay.metadata.name ?? '');
  if (verdict !== undefined && !verdict.applied) return { type, status: 'False', reason: 'Conflict', message: verdict.message ?? 'conflict with another overlay' };
  return { type, status: 'True', reason: type };
}

/** The conditions an overlay should carry now; lastTransitionTime moves only when a status changes. */
export function nodeOverlayConditions(overlay: NodeOverlay, target: OverlayTarget, nowMs: number): Condition[] {
  const validation = validationOf(overlay, target);
  const ready: ConditionUpdate = validation.status === 'True'
    ? { type: nodeOverlayConditionTypes.ready, status: 'True', reason: nodeOverlayConditionTypes.ready }
    : { type: nodeOverlayConditionTypes.ready, status: 'False', reason: `${nodeOverlayConditionTypes.validationSucceeded}False`, message: validation.message ?? '' };
  let conditions: Condition[] = [...(overlay.status?.conditions ?? [])];
  for (const update of [validation, ready]) conditions = withCondition(conditions, update, nowMs);
  return conditions;
}

/** How often the NodeOverlays' conditions are rewritten when no overlay change wakes it. */
export const nodeOverlayStatusPeriodMs = 60_000;

/**
 * Writes each NodeOverlay's ValidationSucceeded and Ready conditions: False with reason RuntimeValidation when it
 * is invalid, Conflict when a same-weight overlay sets the same price or resource (Karpenter's rules, in
 * domain/instance-types/node-overlay.ts), True otherwise. Writes only what changed.
 */
export class NodeOverlayStatusController extends OptionsController<{ readonly overlays: NodeOverlays; readonly target: OverlayTarget; readonly writer: NodeOverlayStatusWriter; readonly clock: Clock }> {
  readonly name = 'nodeoverlay.status';

  async reconcile(): Promise<ReconcileResult> {
    const { overlays, target, writer, clock } = this.options;
    for (const overlay of overlays.all()) {
      const conditions = nodeOverlayConditions(overlay, target, clock.now());
      if (sameConditions(conditions, overlay.status?.conditions ?? [])) continue;
      await writer.patchConditions(overlay.metadata.name ?? '', conditions);
    }
    return { requeueAfterMs: nodeOverlayStatusPeriodMs };
  }
}
