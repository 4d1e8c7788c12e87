import { podKeyOf } from '../domain/core/object-key.js';
import { catalogSnapshotDate, catalogSource, defaultSpotPriceFraction } from '../domain/instance-types/catalog.js';
import type { SimulationResult } from '../domain/simulation/simulation-input.js';

/** The `plan --output json` document. */
export interface PlanReport {
  readonly nodeClaims: readonly {
    readonly name: string;
    readonly nodePool: string;
    readonly instanceTypes: readonly string[];
    readonly zone: string | null;
    readonly capacityType: string | null;
    readonly pods: readonly string[];
    readonly pricePerHour: number;
  }[];
  readonly unschedulable: readonly { readonly pod: string; readonly reason: string }[];
  readonly existing: readonly { readonly node: string; readonly pods: readonly string[] }[];
  readonly totals: { readonly pricePerHour: number; readonly nodes: number; readonly cpuUtilization: number; readonly memoryUtilization: number };
  /** Which prices the plan used: offline there is no DescribeSpotPriceHistory, so spot is the catalog's estimate. */
  readonly prices: { readonly onDemand: string; readonly spot: string };
  /** Which instance types the plan chose from: offline, the embedded snapshot, every type in every zone. */
  readonly instanceTypes: string;
}

/** The offline plan's instance-type source, as said in its output. */
export const offlineInstanceTypes = `embedded catalog (snapshot date ${catalogSnapshotDate}; every type in every zone, offline; nodesmith run describes them with DescribeInstanceTypes and DescribeInstanceTypeOfferings)`;

/** The offline plan's price sources, as said in its output. */
export const offlinePrices = {
  onDemand: `embedded catalog (snapshot date ${catalogSnapshotDate}, ${catalogSource}; nodesmith run asks the Pricing API)`,
  spot: `estimated at ${String(defaultSpotPriceFraction * 100)}% of on-demand (offline; nodesmith run prices spot from DescribeSpotPriceHistory)`,
} as const;

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Shapes a simulation result for output; utilisation is requested ÷ allocatable over the new NodeClaims. */
export function planReport(result: SimulationResult): PlanReport {
  let price = 0;
  const used = { cpu: 0, memory: 0 };
  const allocatable = { cpu: 0, memory: 0 };
  for (const c of result.nodeClaims) {
    price += c.pricePerHour;
    used.cpu += c.requests['cpu'] ?? 0;
    used.memory += c.requests['memory'] ?? 0;
    allocatable.cpu += c.allocatable['cpu'] ?? 0;
    allocatable.memory += c.allocatable['memory'] ?? 0;
  }
  return {
    nodeClaims: result.nodeClaims.map((c) => ({
      name: c.name, nodePool: c.nodePool, instanceTypes: c.instanceTypes, zone: c.zone ?? null,
      capacityType: c.capacityType ?? null, pods: c.pods.map(podKeyOf), pricePerHour: round(c.pricePerHour, 5),
    })),
    unschedulable: result.unschedulable.map((u) => ({ pod: podKeyOf(u.pod), reason: u.reason })),
    existing: result.existing.map((e) => ({ node: e.node, pods: e.pods.map(podKeyOf) })),
    totals: {
      pricePerHour: round(price, 5), nodes: result.nodeClaims.length,
      cpuUtilization: allocatable.cpu === 0 ? 0 : round(used.cpu / allocatable.cpu, 4),
      memoryUtilization: allocatable.memory === 0 ? 0 : round(used.memory / allocatable.memory, 4),
    },
    prices: offlinePrices,
    instanceTypes: offlineInstanceTypes,
  };
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function typesCell(types: readonly string[]): string {
  const shown = types.slice(0, 3).join(', ');
  return types.length > 3 ? `${shown} (+${types.length - 3})` : shown;
}

/** The human-readable plan: new NodeClaims, pods on existing nodes, unschedulable pods, totals. */
export function planTable(report: PlanReport): string {
  const parts: string[] = [];
  if (report.nodeClaims.length > 0) {
    parts.push(table(['NODECLAIM', 'NODEPOOL', 'INSTANCE TYPES (cheapest first)', 'ZONE', 'CAPACITY', 'PODS', '$/HOUR'],
      report.nodeClaims.map((c) => [c.name, c.nodePool, typesCell(c.instanceTypes), c.zone ?? 'any', c.capacityType ?? 'any', String(c.pods.length), c.pricePerHour.toFixed(4)])));
  }
  if (report.existing.length > 0) {
    parts.push(table(['EXISTING NODE', 'NEW PODS'], report.existing.map((e) => [e.node, String(e.pods.length)])));
  }
  if (report.unschedulable.length > 0) {
    parts.push(table(['UNSCHEDULABLE POD', 'REASON'], report.unschedulable.map((u) => [u.pod, u.reason])));
  }
  const t = report.totals;
  parts.push(`Total: ${t.nodes} new node(s), $${t.pricePerHour.toFixed(4)}/hour, CPU ${(t.cpuUtilization * 100).toFixed(1)}%, memory ${(t.memoryUtilization * 100).toFixed(1)}% of allocatable requested\nInstance types: ${report.instanceTypes}\nPrices: on-demand from the ${report.prices.onDemand}; spot ${report.prices.spot}`);
  return `${parts.join('\n\n')}\n`;
}
