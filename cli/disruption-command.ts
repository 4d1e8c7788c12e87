import { parseArgs } from 'node:util';
import { loadInstanceTypes } from '../domain/instance-types/catalog.js';
import { consolidationDryRun, type ConsolidationDryRun } from '../provisioner/disruption/consolidation-dry-run.js';
import type { ConsolidationReport, LastPass } from '../provisioner/disruption/consolidation-report.js';
import type { ConsolidationOptions } from '../provisioner/disruption/consolidation-settings.js';
import { offeringPrices } from '../provisioner/disruption/offering-prices.js';
import { startClusterInformers } from '../provisioner/kube/cluster-informers.js';
import { loadKubeConfig } from '../provisioner/kube/kube-config.js';
import { ClusterState } from '../provisioner/state/cluster-state.js';
import { stateFromDump } from './cluster-dump.js';
import type { Command, CommandIo } from './command.js';
import { disruptionSpec } from './command-specs.js';
import { consolidationFlags } from './consolidation-flags.js';
import { featureGatesText, isGateOn } from './feature-gates.js';
import { applyNodeOverlays } from '../domain/instance-types/node-overlay.js';
import { NodeOverlays } from '../provisioner/pricing/node-overlays.js';
import { dryRunTable } from './disruption-output.js';
import { readManifestFiles } from './manifest-files.js';

interface DryRunFlags {
  readonly files: readonly string[];
  /** The running controller's health server: ask it (GET /debug/consolidation) instead of listing the cluster. */
  readonly leader?: string;
  readonly kubeconfig?: string;
  readonly output: 'table' | 'json';
  readonly region: string;
  readonly nowMs?: number;
  readonly options: ConsolidationOptions;
  /** The NodeOverlay gate: the cluster's (or the dump's) NodeOverlays price the catalog, as the controller's. */
  readonly nodeOverlay: boolean;
}

const options = {
  file: { type: 'string', short: 'f', multiple: true }, kubeconfig: { type: 'string' }, leader: { type: 'string' }, output: { type: 'string', short: 'o' }, region: { type: 'string' },
  now: { type: 'string' }, 'consolidation-min-savings': { type: 'string' }, 'feature-gates': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

function parseNow(text: string | undefined, problems: string[]): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) problems.push(`--now must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got "${text}"`);
  return ms;
}

function sourceAndOutput(values: Values, problems: string[]): { files: readonly string[]; output: 'table' | 'json' } {
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') problems.push(`--output must be "table" or "json", got "${output}"`);
  const files = values.file ?? [];
  const sources = [files.length > 0, values.kubeconfig !== undefined, values.leader !== undefined].filter(Boolean).length;
  if (sources > 1) problems.push('give one of -f (a dump or manifests), --kubeconfig (a live cluster) or --leader (the running controller)');
  if (values.leader !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(values.leader)) problems.push(`--leader must be the controller's health server as http://host:port, got "${values.leader}"`);
  return { files, output: output === 'json' ? 'json' : 'table' };
}

function checked(values: Values, env?: Readonly<Record<string, string | undefined>>): DryRunFlags | string {
  const problems: string[] = [];
  const { files, output } = sourceAndOutput(values, problems);
  const nowMs = parseNow(values.now, problems);
  const consolidation = consolidationFlags({ minSavings: values['consolidation-min-savings'] ?? '', featureGates: featureGatesText(values['feature-gates'], env) }, problems);
  const nodeOverlay = isGateOn(featureGatesText(values['feature-gates'], env), 'NodeOverlay');
  if (problems.length > 0) return problems.join('\n');
  return {
    nodeOverlay,
    files, output, region: values.region ?? 'us-east-1', options: consolidation,
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }), ...(nowMs === undefined ? {} : { nowMs }),
    ...(values.leader === undefined ? {} : { leader: values.leader.replace(/\/$/, '') }),
  };
}

function parseFlags(argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): DryRunFlags | string {
  try {
    return checked(parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values, env);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The model from a dump, or from a live cluster through the controller's own informers (listed once, then stopped). */
async function loadState(flags: DryRunFlags, overlays: NodeOverlays, io: CommandIo): Promise<ClusterState> {
  if (flags.files.length > 0) {
    const dump = stateFromDump(await readManifestFiles(flags.files));
    if (dump.problems.length > 0) throw new Error(dump.problems.join('\n'));
    if (dump.ignored.length > 0) io.stderr(`nodesmith disruption: ignoring ${String(dump.ignored.length)} objects of other kinds (${dump.ignored.slice(0, 3).join(', ')}${dump.ignored.length > 3 ? ', …' : ''})\n`);
    for (const overlay of dump.nodeOverlays) overlays.handlers.upsert(overlay);
    return dump.state;
  }
  const state = new ClusterState();
  // NodeOverlays are listed only with the gate on, as the controller watches them only then.
  const informers = startClusterInformers(loadKubeConfig(flags.kubeconfig, { env: io.env ?? {} }), state, { onError: (resource, e) => { io.stderr(`nodesmith disruption: listing ${resource}: ${e instanceof Error ? e.message : String(e)}\n`); }, ...(flags.nodeOverlay ? { overlays: overlays.handlers } : {}) });
  try {
    await Promise.race([informers.synced, new Promise((_, reject) => { setTimeout(() => { reject(new Error('the cluster was not listed within 60s')); }, 60_000).unref(); })]);
  } finally {
    await informers.stop();
  }
  return state;
}

async function runDryRun(flags: DryRunFlags, io: CommandIo): Promise<ConsolidationDryRun> {
  const overlays = new NodeOverlays();
  const state = await loadState(flags, overlays, io);
  if (state.nodePools.size > 0 && state.nodeClasses.size === 0) {
    io.stderr('nodesmith disruption: no EC2NodeClass in the input: replacements cannot be launched, only deletes are considered\n');
  }
  const catalogTypes = loadInstanceTypes({ region: flags.region });
  if (!flags.nodeOverlay && overlays.all().length > 0) io.stderr(`nodesmith disruption: ignoring ${String(overlays.all().length)} NodeOverlay(s): the NodeOverlay gate is off, as in Karpenter (--feature-gates NodeOverlay=true applies them)\n`);
  const instanceTypes = flags.nodeOverlay ? applyNodeOverlays(catalogTypes, overlays.valid()).types : catalogTypes;
  const catalog = new Map(instanceTypes.map((t) => [t.name, t]));
  const nowMs = flags.nowMs ?? Date.now();
  return consolidationDryRun({
    state, clock: { now: () => nowMs, sleep: () => Promise.resolve() }, instanceTypes: () => instanceTypes, unavailableOfferings: () => new Set(),
    priceOf: offeringPrices(() => catalog), options: flags.options,
    // Explaining every candidate takes one simulation each; the dry run may take its time (no extender to starve).
    timeBudgetMs: Number.MAX_SAFE_INTEGER,
  });
}

function passWords(pass: LastPass): string {
  if (pass.skipped !== null) return `${pass.method} skipped (${pass.skipped})`;
  return `${pass.method} ${String(pass.simulations)} simulations${pass.command === null ? ', nothing chosen' : `, chose: ${pass.command}`}`;
}

/** The running controller's own answer, on its model (commands in flight included); the same report as the dry run. */
async function askLeader(url: string, io: CommandIo): Promise<ConsolidationDryRun> {
  const response = await fetch(`${url}/debug/consolidation`, { signal: AbortSignal.timeout(240_000) });
  const body = await response.text();
  if (!response.ok) throw new Error(`${url}/debug/consolidation answered ${String(response.status)}: ${body}`);
  const report = JSON.parse(body) as ConsolidationReport;
  const who = report.leader ? 'the leader' : 'not the leader: its model, but no passes of its own';
  io.stderr(`nodesmith disruption: answered by ${url} (${who}); last passes: ${report.lastPasses.map(passWords).join('; ')}\n`);
  return report.now;
}

/** `nodesmith disruption`: what consolidation would do now, with the reason for every node it leaves alone. */
export const disruptionCommand: Command = {
  ...disruptionSpec,
  async run(argv: readonly string[], io: CommandIo): Promise<number> {
    const flags = parseFlags(argv, io.env);
    if (typeof flags === 'string') {
      io.stderr(`nodesmith disruption: ${flags}\nUsage: nodesmith disruption ${disruptionSpec.usage}\n`);
      return 2;
    }
    try {
      const report = flags.leader === undefined ? await runDryRun(flags, io) : await askLeader(flags.leader, io);
      io.stdout(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : dryRunTable(report));
      return 0;
    } catch (e) {
      io.stderr(`nodesmith disruption: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
  },
};
