import type { ProductStack } from '../e2e/product-stack.js';
import { Churn } from './churn.js';
import { isFinished, isLive, isServing, takeSnapshot, type ClusterSnapshot } from './cluster-snapshot.js';
import { Faults } from './faults.js';
import { Invariants } from './invariants.js';
import { leaderReplica } from './leader.js';
import { Prng } from './prng.js';
import { heapUsedMiBIn, sampleProcess, type ProcessSample } from './process-sampler.js';
import { CostMeter, isQuiet, type CostReading } from './quiet-cost.js';
import { expiryFor, setUpWorkload, soakQueue } from './soak-setup.js';
import type { Tally } from './tally.js';
import { defaultGraces, formatViolation, type Graces, type Violation } from './violation.js';

export interface SoakOptions {
  readonly minutes: number;
  readonly seed: number;
  readonly write: (text: string) => void;
  readonly graces?: Graces;
  /** How often the invariants are checked and nodesmith's process is read (default 5 s). */
  readonly checkEveryMs?: number;
  /** How long, at most, the cluster gets to settle after the last fault before the final counts (default 4 min). */
  readonly settleMs?: number;
  /** At least this many other faults between two that kill nodesmith (default 0: as the draw falls). */
  readonly faultsBetweenRestarts?: number;
}

export interface SoakReport {
  readonly violations: readonly Violation[];
  readonly faults: Tally;
  readonly churn: Tally;
  readonly samples: readonly ProcessSample[];
  readonly costs: readonly CostReading[];
  /** At the end, after settling: instances no NodeClaim holds, launched NodeClaims without an instance, Deployment pods missing. */
  readonly leakedInstances: readonly string[];
  readonly lostNodeClaims: readonly string[];
  readonly missingPods: readonly string[];
  /** NodeClaims seen being deleted (consolidation, drift, expiry, interruption): how much the fleet turned over. */
  readonly disruptedNodeClaims: number;
  readonly checks: number;
  readonly failedChecks: number;
  readonly settledAfterMs: number | undefined;
  /** The fleet and the pods at the end, for reading the cost figures. */
  readonly finalFleet: string;
}

function fleetOf(s: ClusterSnapshot | undefined): string {
  if (s === undefined) return 'unknown';
  const byPool = new Map<string, number>();
  for (const c of s.claims) byPool.set(c.nodePool, (byPool.get(c.nodePool) ?? 0) + 1);
  const drifted = s.claims.filter((c) => c.conditions.some((x) => x.type === 'Drifted' && x.status === 'True')).length;
  const pods = s.pods.filter((p) => !isFinished(p)).length;
  return `${String(s.claims.length)} NodeClaims (${[...byPool].map(([pool, n]) => `${pool} ${String(n)}`).join(', ')}; ${String(drifted)} drifted) for ${String(pods)} pods`;
}

/** What is left wrong in a snapshot: the final counts, and the settle phase's exit test. */
function leftovers(s: ClusterSnapshot): { leaked: string[]; lost: string[]; missing: string[] } {
  const held = new Set(s.claims.flatMap((c) => (c.instanceId === undefined ? [c.name] : [c.instanceId, c.name])));
  const leaked = s.instances.filter((i) => isLive(i) && !held.has(i.id) && !held.has(i.tags['karpenter.sh/nodeclaim'] ?? '')).map((i) => `${i.id} (${i.type})`);
  const liveIds = new Set(s.instances.filter(isLive).map((i) => i.id));
  const lost = s.claims.filter((c) => c.instanceId !== undefined && !c.deleting && !liveIds.has(c.instanceId)).map((c) => `${c.name} (${c.instanceId ?? ''})`);
  const missing = s.deployments.flatMap((d) => {
    const serving = s.pods.filter((p) => p.app === d.name && isServing(p)).length;
    return serving < d.replicas ? [`deployment/${d.name}: ${String(serving)}/${String(d.replicas)}`] : [];
  });
  return { leaked, lost, missing };
}

const settled = (s: ClusterSnapshot): boolean => {
  const left = leftovers(s);
  return left.leaked.length + left.lost.length + left.missing.length === 0 && s.pods.every((p) => isFinished(p) || isServing(p)) && s.claims.every((c) => !c.deleting);
};

/** One soak: churn and faults for `minutes`, the invariants checked every few seconds, then settling and the final counts. */
export class Soak {
  private readonly product: ProductStack;
  private readonly options: SoakOptions;
  readonly #startMs: number;
  readonly #invariants: Invariants;
  readonly #prng: Prng;
  readonly #churn: Churn;
  readonly #faults: Faults;
  readonly #cost: CostMeter;
  readonly #violations: Violation[] = [];
  readonly #samples: ProcessSample[] = [];
  readonly #costs: CostReading[] = [];
  readonly #disrupted = new Set<string>();
  readonly #background = new Set<Promise<void>>();
  #checks = 0;
  #failedChecks = 0;
  #heapReadAtMs = 0;
  #last: ClusterSnapshot | undefined;

  constructor(product: ProductStack, options: SoakOptions) {
    this.product = product;
    this.options = options;
    this.#startMs = Date.now();
    // One stream each for the schedule, churn and faults: how the stack's timing interleaves them then changes
    // nothing in what each one chooses, so a seed gives the same sequence of churn steps and of fault kinds.
    this.#prng = new Prng(options.seed);
    this.#invariants = new Invariants(options.graces ?? defaultGraces, this.#startMs);
    this.#churn = new Churn(product, new Prng(options.seed + 1), this.#invariants, (line) => { this.#say(line); });
    this.#faults = new Faults(product, new Prng(options.seed + 2), { queue: soakQueue, invariants: this.#invariants, log: (line) => { this.#say(line); }, faultsBetweenRestarts: options.faultsBetweenRestarts });
    this.#cost = new CostMeter(product.moto.region);
  }

  #say(line: string): void {
    this.options.write(`[${((Date.now() - this.#startMs) / 1000).toFixed(1).padStart(7)}s] ${line}\n`);
  }

  /** Runs a step in the background so that a slow one (a restart takes seconds) never delays the checks. */
  #spawn(step: () => Promise<void>, what: string): void {
    const running = step().catch((error: unknown) => { this.#say(`${what} failed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`); });
    this.#background.add(running);
    void running.finally(() => this.#background.delete(running));
  }

  async #check(): Promise<ClusterSnapshot | undefined> {
    await this.#sampleLeader();
    try {
      const s = await takeSnapshot(this.product);
      this.#checks++;
      this.#last = s;
      for (const c of s.claims) if (c.deleting) this.#disrupted.add(c.name);
      for (const v of this.#invariants.check(s)) {
        this.#violations.push(v);
        this.options.write(`${formatViolation(v)}\n`);
      }
      this.#readCost(s);
      return s;
    } catch (error) {
      this.#failedChecks++;
      this.#say(`check failed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
      return undefined;
    }
  }

  /** With replicas, the leader's memory: it is the one that plans, launches and disrupts. */
  async #sampleLeader(): Promise<void> {
    const leader = await leaderReplica(this.product);
    const single = this.product.replicas.length === 0;
    const sample = sampleProcess(single ? this.product.childPid() : leader?.process.pid, Date.now());
    if (sample === undefined || this.#faults.restarting) return;
    this.#samples.push({ ...sample, ...(await this.#heapReading(single ? this.product.healthUrl : leader?.healthUrl, sample.atMs)) });
  }

  /**
   * The V8 heap in use, from the leader's own /metrics, every 30 s: not every check, since a scrape costs the process
   * being measured. Nothing when the scrape fails (a restart, a dropped connection).
   */
  async #heapReading(healthUrl: string | undefined, atMs: number): Promise<{ heapUsedMiB?: number }> {
    if (healthUrl === undefined || atMs - this.#heapReadAtMs < 30_000) return {};
    this.#heapReadAtMs = atMs;
    try {
      const heapUsedMiB = heapUsedMiBIn(await (await fetch(`${healthUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text());
      return heapUsedMiB === undefined ? {} : { heapUsedMiB };
    } catch {
      return {};
    }
  }

  /** At most one reading a minute, and only at quiet points with no fault in effect. */
  #readCost(s: ClusterSnapshot): void {
    const lastAt = this.#costs.at(-1)?.atMs ?? -Infinity;
    if (s.atMs - this.#startMs - lastAt < 60_000 || this.#faults.active || !isQuiet(s)) return;
    const reading = this.#cost.read(s, this.#startMs);
    if (reading === undefined) return;
    this.#costs.push(reading);
    this.#say(`quiet point: fleet $${reading.dollarsPerHour.toFixed(3)}/h, bound $${reading.boundPerHour.toFixed(3)}/h, ratio ${(reading.dollarsPerHour / reading.boundPerHour).toFixed(2)}`);
  }

  async run(): Promise<SoakReport> {
    const every = this.options.checkEveryMs ?? 5_000;
    this.#say(`seed ${String(this.options.seed)}, ${String(this.options.minutes)} min; logs in ${this.product.stack.dir}`);
    await setUpWorkload(this.product, expiryFor(this.options.minutes));
    this.#say('workload running; churn and faults start');
    const endMs = Date.now() + this.options.minutes * 60_000;
    let nextChurn = Date.now() + this.#prng.int(5_000, 15_000);
    let nextFault = Date.now() + this.#prng.int(10_000, 25_000);
    while (Date.now() < endMs) {
      if (Date.now() >= nextChurn) { this.#spawn(() => this.#churn.step(), 'churn'); nextChurn = Date.now() + this.#prng.int(8_000, 20_000); }
      if (Date.now() >= nextFault) { this.#spawn(() => this.#faults.inject(), 'fault'); nextFault = Date.now() + this.#prng.int(15_000, 35_000); }
      await this.#faults.liftDue();
      await this.#check();
      await new Promise((resolve) => setTimeout(resolve, every));
    }
    return this.#settle(every);
  }

  async #settle(every: number): Promise<SoakReport> {
    this.#say('churn and faults stop; settling');
    await Promise.all([...this.#background]);
    await this.#faults.stop();
    this.#faults.close();
    const settleStart = Date.now();
    let settledAfterMs: number | undefined;
    while (Date.now() - settleStart < (this.options.settleMs ?? 240_000)) {
      const s = await this.#check();
      if (s !== undefined && settled(s)) { settledAfterMs = Date.now() - settleStart; break; }
      await new Promise((resolve) => setTimeout(resolve, every));
    }
    this.#say(settledAfterMs === undefined ? 'did not settle' : `settled after ${(settledAfterMs / 1000).toFixed(0)} s`);
    const left = this.#last === undefined ? { leaked: [], lost: [], missing: ['no snapshot'] } : leftovers(this.#last);
    return {
      violations: this.#violations, faults: this.#faults.counts, churn: this.#churn.counts, samples: this.#samples, costs: this.#costs,
      leakedInstances: left.leaked, lostNodeClaims: left.lost, missingPods: left.missing, disruptedNodeClaims: this.#disrupted.size,
      checks: this.#checks, failedChecks: this.#failedChecks, settledAfterMs, finalFleet: fleetOf(this.#last),
    };
  }
}
