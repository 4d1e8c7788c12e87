// A lower bound on plan cost that whole pods can approach: an LP that buys nodes fractionally but may only put a
// pod on an instance type that can hold that pod on its own.
//
// Why it is a lower bound. Take any plan that places every pod, and let each NodeClaim launch as the type it is
// priced on (its cheapest option, which fits all its pods). Set x_t to the number of claims priced on type t and
// a_ct to the number of pods of request class c on them. Then a_ct > 0 only where one pod of class c fits t; on
// each claim the pods' CPU, memory and pod count fit t's allocatable, so summed over the claims of type t every
// capacity row holds; every pod is somewhere, so the demand rows hold; and the objective equals the plan's
// $/hour. So every plan is a feasible point of the LP, and the LP optimum is at most the cheapest plan.
// Dropping a type B for which some type A fits every class B fits and gives at least as much CPU, memory and
// pod slots per dollar does not change the optimum: B's nodes can be swapped for price_B ÷ price_A nodes of A
// at the same cost and with room for the same pods.
//
// The issue's literal bound (cost-bound.ts) is the same LP without the fit rule and without pod slots, so it may
// cover CPU with a t4g.nano that has too little memory for any pod; when this bound is more than 10% above the
// literal one, no plan can come within 10% of the literal bound.
import type { LegacyHighs } from 'highs';
import type { InstanceType } from '../../domain/instance-types/instance-type.js';
import type { Pod } from '../../domain/core/pod.js';
import { podRequests } from '../../domain/pod-requests.js';

/** Pods with equal CPU and memory requests: the LP only needs their count. */
export interface PodClass { readonly cpu: number; readonly memory: number; readonly count: number }

/** What the LP knows of an instance type: allocatable CPU (millicores), memory (bytes), pod slots, cheapest $/hour. */
export interface NodeOffer { readonly name: string; readonly cpu: number; readonly memory: number; readonly pods: number; readonly price: number }

/** The bound and the fleet that reaches it (fractional nodes per type). */
export interface AssignmentBound { readonly cost: number; readonly fleet: readonly { readonly name: string; readonly nodes: number }[] }

/** Groups pods by (CPU, memory) request; the benchmark's pods fall into at most 42 classes. */
export function podClasses(pods: readonly Pod[]): PodClass[] {
  const counts = new Map<string, { cpu: number; memory: number; count: number }>();
  for (const pod of pods) {
    const requests = podRequests(pod);
    const cpu = requests['cpu'] ?? 0;
    const memory = requests['memory'] ?? 0;
    const key = `${String(cpu)}/${String(memory)}`;
    const entry = counts.get(key) ?? { cpu, memory, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()];
}

/** Every type with an available offering, at its cheapest one (the benchmark's NodePool allows them all). */
export function nodeOffers(types: readonly InstanceType[]): NodeOffer[] {
  return types.map((t) => ({
    name: t.name, cpu: t.allocatable['cpu'] ?? 0, memory: t.allocatable['memory'] ?? 0, pods: t.allocatable['pods'] ?? 0,
    price: Math.min(...t.offerings.filter((o) => o.available).map((o) => o.price)),
  })).filter((o) => Number.isFinite(o.price) && o.pods > 0);
}

const fits = (c: PodClass, o: NodeOffer): boolean => c.cpu <= o.cpu && c.memory <= o.memory;

function dominates(a: NodeOffer, b: NodeOffer, classes: readonly PodClass[]): boolean {
  if (!classes.every((c) => fits(c, a) || !fits(c, b))) return false;
  const perDollar = (o: NodeOffer): number[] => [o.cpu / o.price, o.memory / o.price, o.pods / o.price];
  const pa = perDollar(a);
  const pb = perDollar(b);
  if (pa.some((v, i) => v < (pb[i] ?? 0))) return false;
  // Equal offers: keep the first by name so exactly one survives.
  return pa.some((v, i) => v > (pb[i] ?? 0)) || a.name < b.name;
}

/** The offers an optimal LP solution may need: each fits some class and none is dominated. */
export function usefulOffers(offers: readonly NodeOffer[], classes: readonly PodClass[]): NodeOffer[] {
  const fitting = offers.filter((o) => classes.some((c) => fits(c, o)));
  return fitting.filter((b) => !fitting.some((a) => a !== b && dominates(a, b, classes)));
}

/** The model in CPLEX LP format, CPU in cores and memory in GiB so coefficients stay near 1. */
function lpModel(offers: readonly NodeOffer[], classes: readonly PodClass[]): string {
  const gib = 2 ** 30;
  const lines = ['Minimize', ` cost: ${offers.map((o, j) => `${String(o.price)} x${String(j)}`).join(' + ')}`, 'Subject To'];
  classes.forEach((c, i) => {
    const cols = offers.flatMap((o, j) => (fits(c, o) ? [`a${String(i)}_${String(j)}`] : []));
    lines.push(` demand${String(i)}: ${cols.join(' + ')} = ${String(c.count)}`);
  });
  offers.forEach((o, j) => {
    const row = (amount: (c: PodClass) => number): string =>
      classes.flatMap((c, i) => (fits(c, o) ? [`${String(amount(c))} a${String(i)}_${String(j)}`] : [])).join(' + ');
    lines.push(` cpu${String(j)}: ${row((c) => c.cpu / 1000)} - ${String(o.cpu / 1000)} x${String(j)} <= 0`);
    lines.push(` memory${String(j)}: ${row((c) => c.memory / gib)} - ${String(o.memory / gib)} x${String(j)} <= 0`);
    lines.push(` pods${String(j)}: ${row(() => 1)} - ${String(o.pods)} x${String(j)} <= 0`);
  });
  lines.push('End');
  return lines.join('\n');
}

/** Solves the assignment LP; throws if some class fits no type (then no plan places every pod). */
export function assignmentBound(highs: LegacyHighs, offers: readonly NodeOffer[], classes: readonly PodClass[]): AssignmentBound {
  const homeless = classes.find((c) => !offers.some((o) => fits(c, o)));
  if (homeless !== undefined) throw new RangeError(`no instance type holds a pod of ${String(homeless.cpu)}m CPU and ${String(homeless.memory)} bytes`);
  const useful = usefulOffers(offers, classes);
  const solution = highs.solve(lpModel(useful, classes));
  if (solution.Status !== 'Optimal') throw new Error(`solving the assignment bound: ${solution.Status}`);
  const fleet = useful.map((o, j) => ({ name: o.name, nodes: solution.Columns[`x${String(j)}`]?.Primal ?? 0 })).filter((f) => f.nodes > 1e-9);
  return { cost: solution.ObjectiveValue, fleet };
}
