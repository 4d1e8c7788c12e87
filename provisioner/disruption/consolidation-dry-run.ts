import type { Command } from './command.js';
import type { Candidate } from './candidate.js';
import { budgetsFor } from './budget-map.js';
import { scanCandidates } from './candidates.js';
import type { PriceOf } from '../../domain/instance-types/price-of.js';
import { ConsolidationMethod, type ConsolidationFindings } from './consolidation-method.js';
import type { ConsolidationOptions } from './consolidation-settings.js';
import { methodContext, type ContextDeps } from './method-context.js';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import type { PodMove } from '../../domain/disruption/consolidation/consolidation-types.js';
import { compareStrings } from '../../domain/compare.js';

export type MethodName = 'multi-node' | 'single-node';

/** One command a consolidation method would start now. */
export interface DryRunCommand {
  readonly method: MethodName;
  readonly decision: 'delete' | 'replace';
  readonly nodes: readonly string[];
  readonly pricePerHour: number;
  readonly replacement: { readonly instanceTypes: readonly string[]; readonly capacityType: string | null; readonly zone: string | null; readonly pricePerHour: number } | null;
  readonly savingsPerHour: number;
  /** What the move saves whichever replacement option EC2 picks. */
  readonly guaranteedSavingsPerHour: number;
  readonly explanation: string;
  readonly moves: readonly PodMove[];
}

/** One node of the cluster and what consolidation makes of it now. */
export interface DryRunNode {
  readonly name: string;
  readonly nodePool: string | null;
  readonly instanceType: string | null;
  readonly capacityType: string | null;
  readonly zone: string | null;
  readonly pricePerHour: number;
  readonly pods: number;
  /** The method whose command would take it, when one would. */
  readonly command: MethodName | null;
  /** Why it is not consolidated now (null when a command takes it). */
  readonly reason: string | null;
}

/** `nodesmith disruption --output json`. */
export interface ConsolidationDryRun {
  readonly at: string;
  /** The method that acts this pass: the first of multi-node, single-node with a command (the controller's order). */
  readonly acts: MethodName | null;
  readonly commands: readonly DryRunCommand[];
  readonly searches: readonly { readonly method: MethodName; readonly simulations: number; readonly timedOut: boolean; readonly refusedBatches: readonly { readonly size: number; readonly reason: string }[] }[];
  readonly nodes: readonly DryRunNode[];
  readonly totals: { readonly nodes: number; readonly pricePerHour: number; readonly savingsPerHour: number };
}

export interface DryRunDeps extends ContextDeps {
  readonly priceOf: PriceOf;
  readonly options: ConsolidationOptions;
}

const methodNames = { multi: 'multi-node', single: 'single-node' } as const;

function commandView(method: MethodName, command: Command, findings: ConsolidationFindings): DryRunCommand {
  const [r] = command.replacements;
  return {
    method, decision: r === undefined ? 'delete' : 'replace', nodes: command.candidates.map((c) => c.nodeName),
    pricePerHour: findings.move?.candidatesPricePerHour ?? 0,
    replacement: r === undefined ? null : { instanceTypes: r.instanceTypes, capacityType: r.capacityType ?? null, zone: r.zone ?? null, pricePerHour: r.pricePerHour },
    savingsPerHour: command.savingsPerHour, guaranteedSavingsPerHour: findings.move?.guaranteedSavingsPerHour ?? command.savingsPerHour,
    explanation: command.explanation, moves: findings.move?.moves ?? [],
  };
}

/**
 * What consolidation would do now, on the controller's own code: the candidate scan, the NodePools' budgets, the
 * methods' context and the two consolidation methods, single-node asked to explain every candidate. Nothing is
 * written. Every node gets the command that takes it or the reason none does.
 */
export async function consolidationDryRun(deps: DryRunDeps): Promise<ConsolidationDryRun> {
  const now = deps.clock.now();
  const scan = await scanCandidates(deps.state, { disruptionClass: 'graceful', nowMs: now, priceOf: deps.priceOf });
  const found = new Map<MethodName, ConsolidationFindings>();
  for (const kind of ['multi', 'single'] as const) {
    const method = new ConsolidationMethod(kind, { clock: deps.clock, priceOf: deps.priceOf, instanceTypes: deps.instanceTypes, unavailableOfferings: deps.unavailableOfferings, options: deps.options });
    const context = methodContext(deps, budgetsFor(deps.state, 'Underutilized', now), now, scan.candidates);
    found.set(methodNames[kind], await method.findings(scan.candidates, context, { explainAll: kind === 'single', remember: false }));
  }
  const commands = [...found].flatMap(([method, f]) => (f.command === undefined ? [] : [commandView(method, f.command, f)]));
  const reasons = new Map<string, string>([
    ...scan.blocked.map((b) => [b.nodeName, b.reason] as const),
    ...(found.get('multi-node')?.notConsolidated ?? []).map((n) => [n.nodeName, n.reason] as const),
    ...(found.get('single-node')?.notConsolidated ?? []).map((n) => [n.nodeName, n.reason] as const),
  ]);
  const nodes = nodeViews(deps, scan.candidates, commands, reasons);
  const acting = commands[0];
  return {
    at: new Date(now).toISOString(),
    acts: acting?.method ?? null,
    commands,
    searches: [...found].map(([method, f]) => ({ method, simulations: f.simulations, timedOut: f.timedOut, refusedBatches: f.refusedBatches })),
    nodes,
    totals: { nodes: nodes.length, pricePerHour: nodes.reduce((s, n) => s + n.pricePerHour, 0), savingsPerHour: acting?.savingsPerHour ?? 0 },
  };
}

function labelled(labels: Readonly<Record<string, string>>): Pick<DryRunNode, 'nodePool' | 'instanceType' | 'capacityType' | 'zone'> {
  return {
    nodePool: labels[wellKnown.nodePool] ?? null, instanceType: labels[wellKnown.instanceType] ?? null,
    capacityType: labels[wellKnown.capacityType] ?? null, zone: labels[wellKnown.zone] ?? null,
  };
}

function reasonFor(deps: DryRunDeps, name: string, reasons: ReadonlyMap<string, string>): string {
  const known = reasons.get(name);
  if (known !== undefined) return known;
  return deps.state.nodeClaimOfNode(name) === undefined ? 'not managed by nodesmith (no NodeClaim)' : 'a candidate, but no move was found for it';
}

function nodeViews(deps: DryRunDeps, candidates: readonly Candidate[], commands: readonly DryRunCommand[], reasons: ReadonlyMap<string, string>): DryRunNode[] {
  const prices = new Map(candidates.map((c) => [c.nodeName, c.pricePerHour]));
  const takenBy = new Map<string, MethodName>();
  for (const c of [...commands].reverse()) for (const name of c.nodes) takenBy.set(name, c.method);
  const out: DryRunNode[] = [];
  for (const [name, node] of deps.state.nodes) {
    if (deps.state.plans.has(name)) continue;
    const facts = labelled(node.metadata.labels ?? {});
    const command = takenBy.get(name) ?? null;
    const price = prices.get(name) ?? (facts.instanceType === null ? 0 : deps.priceOf(facts.instanceType, facts.zone ?? undefined, facts.capacityType ?? undefined));
    out.push({ name, ...facts, pricePerHour: price, pods: deps.state.podsOn(name).length, command, reason: command === null ? reasonFor(deps, name, reasons) : null });
  }
  return out.sort((a, b) => compareStrings(a.name, b.name));
}
