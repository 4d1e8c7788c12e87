import type { VirtualNodePlan } from '../index.js';

/** The labels of an instance type by name, as the catalog the pass plans over has them. */
export type TypeLabels = (instanceType: string) => Readonly<Record<string, string>> | undefined;

interface Built {
  readonly labels: Readonly<Record<string, string>>;
  readonly sources: readonly (Readonly<Record<string, string>> | undefined)[];
  readonly sets: readonly Readonly<Record<string, string>>[];
}

/** The node's labels as before: a heartbeat brings a new Node object with the same labels. */
function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * Built once per plan while its node's labels are the same and its types' labels the same objects: a spot plan offers up to
 * 60 types (domain/simulation/spot-flexibility.ts), and every planning pass snapshots every virtual node, so
 * rebuilding 60 label sets per node per pass, and comparing them field by field with the last pass's, was work
 * done thousands of times over for nothing. The same arrays let the standing cluster see at once that nothing changed.
 */
const built = new WeakMap<VirtualNodePlan, Built>();

/**
 * The labels the node will have for each type the launch may pick (the virtual node shows the cheapest's); undefined
 * when it may pick only one.
 */
export function launchLabelsOf(plan: VirtualNodePlan, labels: Readonly<Record<string, string>>, typeLabels: TypeLabels | undefined): readonly Readonly<Record<string, string>>[] | undefined {
  if (typeLabels === undefined || plan.instanceTypes.length < 2) return undefined;
  const sources = plan.instanceTypes.map(typeLabels);
  const last = built.get(plan);
  if (last !== undefined && sameLabels(last.labels, labels) && last.sources.every((s, i) => s === sources[i])) return last.sets;
  const sets = sources.flatMap((own) => (own === undefined ? [] : [{ ...labels, ...own }]));
  built.set(plan, { labels, sources, sets });
  return sets;
}
