// From what the ProvisioningRequest bench saw of one way of asking for the same pods (an atomic request whose
// consuming Deployment is created once it is Provisioned, or a plain Deployment) to its figures and the printed
// table. Pure, so the arithmetic is tested apart from any cluster.
import { nearestRank } from './stage-timeline.js';

/** One pod as the bench's watch saw it: epoch ms at which it was bound and Running (absent: not seen). */
export interface PodSeen {
  readonly boundMs?: number | undefined;
  readonly runningMs?: number | undefined;
}

export interface WaySeen {
  /** When the bench asked: the request's or the Deployment's create call. */
  readonly startedMs: number;
  /** When the bench saw the request Provisioned=True; absent for the plain Deployment. */
  readonly provisionedMs?: number;
  readonly pods: readonly PodSeen[];
  /** NodeClaims launched for the pods, and the on-demand $/hour of their instances. */
  readonly nodes: number;
  readonly pricePerHour: number;
}

/** Seconds from the ask; NaN where the way has no such moment or no pod reached it. */
export interface WayFigures {
  readonly provisionedS: number;
  readonly allBoundS: number;
  readonly allRunningS: number;
  readonly boundMedianS: number;
  readonly boundP99S: number;
  readonly runningMedianS: number;
  readonly runningP99S: number;
  readonly nodes: number;
  readonly pricePerHour: number;
}

/**
 * The figures of one way: the moment every pod was bound (Running) is the last pod's, and the per-pod median and
 * p99 are over the pods' own moments, all in seconds from the ask. A pod not seen bound (Running) makes "all" NaN,
 * not the last one seen: the bench waits for all of them, so a NaN means the watch missed one.
 */
export function wayFigures(seen: WaySeen): WayFigures {
  const since = (pick: (p: PodSeen) => number | undefined): number[] => seen.pods.flatMap((p) => {
    const at = pick(p);
    return at === undefined ? [] : [(at - seen.startedMs) / 1000];
  });
  const all = (values: readonly number[]): number => (values.length === seen.pods.length && values.length > 0 ? Math.max(...values) : Number.NaN);
  const bound = since((p) => p.boundMs);
  const running = since((p) => p.runningMs);
  return {
    provisionedS: seen.provisionedMs === undefined ? Number.NaN : (seen.provisionedMs - seen.startedMs) / 1000,
    allBoundS: all(bound),
    allRunningS: all(running),
    boundMedianS: nearestRank(bound, 0.5),
    boundP99S: nearestRank(bound, 0.99),
    runningMedianS: nearestRank(running, 0.5),
    runningP99S: nearestRank(running, 0.99),
    nodes: seen.nodes,
    pricePerHour: seen.pricePerHour,
  };
}

const rows: readonly { readonly label: string; readonly pick: (f: WayFigures) => number; readonly unit: 's' | '' | '$' }[] = [
  { label: 'to Provisioned', pick: (f) => f.provisionedS, unit: 's' },
  { label: 'to all pods bound', pick: (f) => f.allBoundS, unit: 's' },
  { label: 'to all pods Running', pick: (f) => f.allRunningS, unit: 's' },
  { label: 'pod bound, median', pick: (f) => f.boundMedianS, unit: 's' },
  { label: 'pod bound, p99', pick: (f) => f.boundP99S, unit: 's' },
  { label: 'pod Running, median', pick: (f) => f.runningMedianS, unit: 's' },
  { label: 'pod Running, p99', pick: (f) => f.runningP99S, unit: 's' },
  { label: 'nodes', pick: (f) => f.nodes, unit: '' },
  { label: 'on-demand $/hour', pick: (f) => f.pricePerHour, unit: '$' },
];

function cell(value: number, unit: 's' | '' | '$'): string {
  if (!Number.isFinite(value)) return '–';
  if (unit === 's') return `${value.toFixed(1)} s`;
  return unit === '$' ? `$${value.toFixed(3)}` : String(value);
}

/**
 * The two ways side by side, each figure the median over the rounds (nearest rank: of two rounds, the smaller), as
 * a Markdown table. Times are seconds from the ask: the request's creation, or the plain Deployment's.
 */
export function sideBySide(request: readonly WayFigures[], deployment: readonly WayFigures[]): string {
  const median = (figures: readonly WayFigures[], pick: (f: WayFigures) => number): number => nearestRank(figures.map(pick).filter(Number.isFinite), 0.5);
  const lines = rows.map(({ label, pick, unit }) => `| ${label} | ${cell(median(request, pick), unit)} | ${cell(median(deployment, pick), unit)} |`);
  return [`| figure (median of ${String(request.length)} round${request.length === 1 ? '' : 's'}) | atomic ProvisioningRequest, then its Deployment | plain Deployment |`, '|---|---:|---:|', ...lines].join('\n');
}
