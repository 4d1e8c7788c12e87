import { parseArgs } from 'node:util';
import { systemClock } from '../domain/clock.js';
import { labels } from '../domain/well-known-labels.js';
import { startClusterInformers } from '../provisioner/kube/cluster-informers.js';
import { loadKubeConfig } from '../provisioner/kube/kube-config.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import { guardedCommand, type Command, type CommandIo } from './command.js';
import { topSpec } from './command-specs.js';
import { featureGatesText, parseFeatureGates } from './feature-gates.js';
import { NodeOverlays } from '../provisioner/pricing/node-overlays.js';
import { buildTopView, type PriceOf } from './top-model.js';
import { catalogPrices, preloadCatalog } from './top-prices.js';
import { renderTop, sortKeys, type SortKey } from './top-render.js';
import { runScreen } from './top-screen.js';

const options = {
  kubeconfig: { type: 'string' },
  once: { type: 'boolean', default: false },
  sort: { type: 'string', default: 'cost' },
  nodepool: { type: 'string' },
  region: { type: 'string' },
  width: { type: 'string' },
  interval: { type: 'string', default: '1' },
  timeout: { type: 'string', default: '30' },
  'feature-gates': { type: 'string', default: '' },
} as const;

export interface TopFlags {
  readonly kubeconfig: string | undefined;
  readonly once: boolean;
  readonly sort: SortKey;
  readonly nodePool: string | undefined;
  readonly region: string | undefined;
  readonly width: number | undefined;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** The NodeOverlay gate, as the controller runs with it: $/h then comes from the overlaid prices. */
  readonly nodeOverlay: boolean;
}

const positive = (value: string, flag: string, problems: string[]): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) problems.push(`--${flag} must be a positive number, got "${value}"`);
  return n;
};

/** Parses every flag once and reports every problem together. */
export function parseTopFlags(argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): TopFlags | string[] {
  const { values: v } = parseArgs({ args: [...argv], options, strict: true });
  const problems: string[] = [];
  const sort = sortKeys.find((k) => k === v.sort);
  if (sort === undefined) problems.push(`--sort must be one of ${sortKeys.join(', ')}; got "${v.sort}"`);
  const width = v.width === undefined ? undefined : positive(v.width, 'width', problems);
  const intervalMs = positive(v.interval, 'interval', problems) * 1000;
  const timeoutMs = positive(v.timeout, 'timeout', problems) * 1000;
  const nodeOverlay = parseFeatureGates(featureGatesText(v['feature-gates'], env), problems).get('NodeOverlay') === true;
  if (problems.length > 0) return problems;
  return Object.freeze({ kubeconfig: v.kubeconfig, once: v.once, sort: sort ?? 'cost', nodePool: v.nodepool, region: v.region, width, intervalMs, timeoutMs, nodeOverlay });
}

/** The region for prices: the flag, else the nodes' region label, else us-east-1 (the catalog's fallback). */
function regionOf(state: ClusterState, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  for (const node of state.nodes.values()) {
    const region = node.metadata.labels?.[labels.region];
    if (region !== undefined) return region;
  }
  return 'us-east-1';
}

/** Lists and watches what the view needs; fails with the API server's last error when the lists do not arrive in time. */
async function syncedState(flags: TopFlags, io: CommandIo): Promise<{ state: ClusterState; overlays: NodeOverlays | undefined; stop: () => Promise<void>; server: string } | string> {
  const target = loadKubeConfig(flags.kubeconfig, { env: io.env ?? {} });
  const server = target.server;
  const state = new ClusterState();
  const overlays = flags.nodeOverlay ? new NodeOverlays() : undefined;
  let lastError = 'no answer';
  const informers = startClusterInformers(target, state, { onError: (resource, e) => { lastError = `${resource}: ${e instanceof Error ? e.message.split('\n')[0] ?? '' : String(e)}`; }, ...(overlays === undefined ? {} : { overlays: overlays.handlers }) });
  const timeout = systemClock.sleep(flags.timeoutMs).then(() => 'timeout' as const);
  const outcome = await Promise.race([informers.synced.then(() => 'synced' as const), timeout, io.interrupted.then(() => 'interrupted' as const)]);
  if (outcome === 'synced') return { state, overlays, stop: () => informers.stop(), server };
  await informers.stop();
  return outcome === 'interrupted' ? 'interrupted' : `could not list the cluster at ${server} within ${String(flags.timeoutMs / 1000)} s (last error: ${lastError})`;
}

async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const flags = parseTopFlags(argv, io.env);
  if (Array.isArray(flags)) {
    io.stderr(`top: invalid flags:\n${flags.map((p) => `  ${p}`).join('\n')}\n`);
    return 2;
  }
  preloadCatalog();
  const synced = await syncedState(flags, io);
  if (typeof synced === 'string') {
    if (synced === 'interrupted') return 130;
    io.stderr(`top: ${synced}\n`);
    return 1;
  }
  const { state } = synced;
  const priceOf: PriceOf = await catalogPrices(regionOf(state, flags.region), synced.overlays);
  try {
    const frame = (o: Parameters<typeof renderTop>[1]): string[] => renderTop(buildTopView(state, priceOf, systemClock.now()), o);
    const terminal = io.terminal;
    if (flags.once || terminal === undefined) {
      io.stdout(`${frame({ width: flags.width ?? terminal?.columns() ?? 200, sort: flags.sort, ...(flags.nodePool === undefined ? {} : { nodePool: flags.nodePool }), interactive: false, nowMs: systemClock.now() }).join('\n')}\n`);
      return 0;
    }
    await runScreen({
      terminal, clock: systemClock, frame, pools: () => [...state.nodePools.keys()].sort(),
      onChange: (listener) => state.onChange(listener), initial: { sort: flags.sort, nodePool: flags.nodePool, scroll: 0 },
      intervalMs: flags.intervalMs, interrupted: io.interrupted,
    });
    return 0;
  } finally {
    await synced.stop();
  }
}

export const topCommand: Command = guardedCommand(topSpec, run);
