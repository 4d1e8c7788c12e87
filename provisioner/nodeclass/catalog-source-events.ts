import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { ReconcileResult } from '../runtime/controller-runner.js';
import type { EventRecorder } from '../ports/events.js';
import { describeCatalogSources, usesFallback, type CatalogSources } from '../pricing/catalog-sources.js';
import { OptionsController } from '../runtime/options-controller.js';

export interface CatalogSourceEventsOptions {
  readonly view: { readonly nodeClasses: ReadonlyMap<string, EC2NodeClass> };
  readonly sources: () => CatalogSources;
  readonly events: EventRecorder;
  /** How often the sources are looked at again (default 1 minute). */
  readonly intervalMs?: number;
}

/** How often the catalog sources are reported on the EC2NodeClasses once each refresh has answered. */
export const catalogSourcePeriodMs = 60_000;

/**
 * Says on each EC2NodeClass which instance types and prices its NodePools are planned with: a Normal
 * `InstanceTypeCatalog` Event naming the sources, or a Warning `InstanceTypeCatalogFallback` when EC2 or the
 * Pricing API could not be asked and the embedded snapshot is in use, with the reason. Karpenter's EC2NodeClass
 * status has no field or condition for this (it cannot fall back), so an Event it is: no invented status field.
 * Each class hears once per change of sources (a new class hears the current ones).
 */
export class CatalogSourceEvents extends OptionsController<CatalogSourceEventsOptions> {
  readonly name = 'nodeclass.catalogsource';
  /** What each class (by uid, else name) was last told. */
  readonly #told = new Map<string, string>();

  reconcile(): Promise<ReconcileResult> {
    const sources = this.options.sources();
    const intervalMs = this.options.intervalMs ?? catalogSourcePeriodMs;
    // Before the first answer (or failure) there is nothing to say yet; saying "embedded" would be a false alarm.
    if ([sources.instanceTypes, sources.onDemandPrices].some((s) => s.source === 'embedded' && s.reason === undefined)) return Promise.resolve({ requeueAfterMs: Math.min(intervalMs, 5_000) });
    const message = describeCatalogSources(sources);
    const fallback = usesFallback(sources);
    const seen = new Set<string>();
    for (const nodeClass of this.options.view.nodeClasses.values()) {
      const { name = '', uid } = nodeClass.metadata;
      const key = uid ?? name;
      seen.add(key);
      if (nodeClass.metadata.deletionTimestamp !== undefined || this.#told.get(key) === message) continue;
      this.#told.set(key, message);
      const target = { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', name, ...(uid === undefined ? {} : { uid }) };
      if (fallback) this.options.events.record(target, 'Warning', 'InstanceTypeCatalogFallback', message);
      else this.options.events.record(target, 'Normal', 'InstanceTypeCatalog', message);
    }
    for (const key of this.#told.keys()) if (!seen.has(key)) this.#told.delete(key);
    return Promise.resolve({ requeueAfterMs: intervalMs });
  }
}
