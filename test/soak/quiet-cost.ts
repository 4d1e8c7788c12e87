import { loadInstanceTypes } from '../../domain/instance-types/catalog.js';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import { costLowerBound } from '../bench/cost-bound.js';
import { isFinished, isLive, isServing, type ClusterSnapshot } from './cluster-snapshot.js';

/** The cost of the fleet against the cheapest fractional cover of the pods' requests, at a quiet point. */
export interface CostReading {
  readonly atMs: number;
  readonly dollarsPerHour: number;
  readonly boundPerHour: number;
}

/**
 * Quiet: every pod that should run runs, no NodeClaim is being deleted or waits for its node, and no fault is in
 * effect. Only then does the fleet's cost say something about the product's choices rather than its work in progress.
 */
export function isQuiet(s: ClusterSnapshot): boolean {
  const pods = s.pods.filter((p) => !isFinished(p));
  return pods.every(isServing) && s.claims.every((c) => !c.deleting && c.nodeName !== undefined);
}

export class CostMeter {
  readonly #types: ReadonlyMap<string, InstanceType>;
  /** The workload's pools allow categories c, m and r: the bound is over those types. */
  readonly #allowed: readonly InstanceType[];

  constructor(region: string) {
    const types = loadInstanceTypes({ region });
    this.#types = new Map(types.map((t) => [t.name, t]));
    this.#allowed = types.filter((t) => ['c', 'm', 'r'].includes(t.labels['karpenter.k8s.aws/instance-category'] ?? ''));
  }

  read(s: ClusterSnapshot, startMs: number): CostReading | undefined {
    const live = s.instances.filter(isLive);
    const serving = s.pods.filter(isServing);
    if (live.length === 0 || serving.length === 0) return undefined;
    const price = (type: string, capacityType: string, zone: string): number => {
      const offerings = this.#types.get(type)?.offerings ?? [];
      return (offerings.find((o) => o.capacityType === capacityType && o.zone === zone) ?? offerings.find((o) => o.capacityType === capacityType))?.price ?? 0;
    };
    const dollarsPerHour = live.reduce((sum, i) => sum + price(i.type, i.lifecycle === 'spot' ? 'spot' : 'on-demand', i.zone), 0);
    const cpu = serving.reduce((sum, p) => sum + p.cpu, 0);
    const memory = serving.reduce((sum, p) => sum + p.memory, 0);
    return { atMs: s.atMs - startMs, dollarsPerHour, boundPerHour: costLowerBound(this.#allowed, cpu, memory) };
  }
}
