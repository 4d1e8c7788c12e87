import * as k8s from '@kubernetes/client-node';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { rebalanceRecommendation, scheduledChange, spotInterruption } from '../fixtures/interruption/eventbridge-events.js';
import { listInstances } from '../e2e/e2e-support.js';
import type { ProductStack } from '../e2e/product-stack.js';
import type { Invariants } from './invariants.js';
import { leaderReplica } from './leader.js';
import { breakNewNodes, neverReadyAnnotation, neverReadyPool, removeBrokenPool } from './never-ready.js';
import type { Prng } from './prng.js';
import { Tally } from './tally.js';
import { waitFor } from '../stack/wait-for.js';

/** The kwok stage that makes a node report Ready=False since the annotated time (test/stack/kwok-stages.yaml). */
const notReadySince = 'test.nodesmith.io/not-ready-since';
/** The EC2 calls nodesmith makes while it launches, watches and terminates. */
const ec2Actions = ['CreateFleet', 'DescribeInstances', 'TerminateInstances', 'DescribeLaunchTemplates', 'CreateLaunchTemplate', 'CreateTags'] as const;

export const faultKinds = ['nodesmith SIGKILL', 'leader killed (Lease handover)', 'API server restart', 'watches dropped', 'EC2 throttling', 'EC2 5xx', 'EC2 slow', 'EC2 insufficient capacity', 'EC2 eventual consistency', 'spot interruption', 'rebalance recommendation', 'health event', 'node NotReady', 'nodes never Ready'] as const;
type FaultKind = (typeof faultKinds)[number];
type Ec2Fault = Extract<FaultKind, `EC2 ${string}`>;
const isEc2 = (kind: FaultKind): kind is Ec2Fault => kind.startsWith('EC2 ');
const restartKinds: readonly FaultKind[] = ['nodesmith SIGKILL', 'leader killed (Lease handover)'];
const weights: Record<FaultKind, number> = {
  'nodesmith SIGKILL': 1, 'leader killed (Lease handover)': 2, 'API server restart': 1, 'watches dropped': 2, 'EC2 throttling': 2, 'EC2 5xx': 2, 'EC2 slow': 2,
  'EC2 insufficient capacity': 2, 'EC2 eventual consistency': 1, 'spot interruption': 2, 'rebalance recommendation': 1, 'health event': 1, 'node NotReady': 2, 'nodes never Ready': 1,
};

const weightsWithoutRestarts = Object.fromEntries(Object.entries(weights).filter(([k]) => !restartKinds.includes(k as FaultKind))) as Record<FaultKind, number>;

/**
 * The next fault's kind. A restart drawn fewer than `between` faults after the last one is drawn again among the
 * other kinds: a process killed every few minutes never lives long enough for its memory to say anything, and the
 * draw stays a function of the seed alone (it counts faults, not seconds).
 */
export function nextFaultKind(prng: Prng, faultsSinceRestart: number, between: number): FaultKind {
  const kind = prng.weighted(weights);
  if (!restartKinds.includes(kind) || faultsSinceRestart >= between) return kind;
  return prng.weighted(weightsWithoutRestarts);
}

/** Faults that land while the soak runs; each one that lasts is lifted by a timer, and all of them at the end. */
export class Faults {
  private readonly product: ProductStack;
  private readonly prng: Prng;
  readonly counts = new Tally();
  readonly #lifts = new Map<() => Promise<void>, number>();
  readonly #sqs: SQSClient;
  #restarting: Promise<void> | undefined;
  #neverReadyOn = false;
  #apiRestart: Promise<void> | undefined;
  // Starts high: the first restart may come at once.
  #sinceRestart = Number.POSITIVE_INFINITY;
  readonly #between: number;
  readonly #queue: string;
  readonly #invariants: Invariants;
  readonly #log: (line: string) => void;

  /**
   * `queue`: the interruption queue; `invariants` learn of the nodes broken on purpose; `log` gets one line per fault;
   * `faultsBetweenRestarts`: at least this many other faults between two that kill nodesmith (default 0).
   */
  constructor(product: ProductStack, prng: Prng, context: { readonly queue: string; readonly invariants: Invariants; readonly log: (line: string) => void; readonly faultsBetweenRestarts?: number | undefined }) {
    this.product = product;
    this.prng = prng;
    this.#between = context.faultsBetweenRestarts ?? 0;
    this.#queue = context.queue;
    this.#invariants = context.invariants;
    this.#log = context.log;
    this.#sqs = new SQSClient({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  }

  /** True while a fault is in effect: one waiting to be lifted, or a restart in progress. */
  get active(): boolean {
    return this.#lifts.size > 0 || this.#restarting !== undefined || this.#apiRestart !== undefined;
  }

  /** True while nodesmith is being restarted (its pid changes, its webhooks answer nothing). */
  get restarting(): boolean {
    return this.#restarting !== undefined;
  }

  async inject(): Promise<void> {
    const kind = nextFaultKind(this.prng, this.#sinceRestart, this.#between);
    this.#sinceRestart++;
    const what = await this.#apply(kind);
    if (what === undefined) return;
    if (restartKinds.includes(kind)) this.#sinceRestart = 0;
    this.counts.add(kind);
    this.#log(`fault ${kind}: ${what}`);
  }

  /** Lifts the faults whose time is up. */
  async liftDue(nowMs = Date.now()): Promise<void> {
    for (const [lift, at] of [...this.#lifts]) {
      if (at > nowMs) continue;
      this.#lifts.delete(lift);
      try {
        await lift();
      } catch (error) {
        // The API server may be restarting: a fault left in place would outlast its time, so try again shortly.
        this.#log(`lifting a fault failed, again in 5 s: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
        this.#lifts.set(lift, Date.now() + 5_000);
      }
    }
  }

  /** Lifts every fault and waits for a restart in progress: the soak's settling starts from a healthy product. */
  async stop(): Promise<void> {
    await this.#restarting;
    await this.#apiRestart;
    for (let attempt = 0; attempt < 24 && this.#lifts.size > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 5_000));
      await this.liftDue(Number.POSITIVE_INFINITY);
    }
    this.product.proxy.clear();
  }

  close(): void {
    this.#sqs.destroy();
  }

  /** What was done, or undefined when there was nothing to do it to (no node yet, a restart already running). */
  async #apply(kind: FaultKind): Promise<string | undefined> {
    if (isEc2(kind)) return this.#ec2(kind);
    switch (kind) {
      case 'nodesmith SIGKILL': return this.#kill();
      case 'leader killed (Lease handover)': return this.#killLeader();
      case 'API server restart': return this.#restartApiServer();
      case 'watches dropped': return this.#dropWatches();
      case 'nodes never Ready': return this.#neverReady();
      case 'node NotReady': return this.#notReady();
      case 'spot interruption': case 'rebalance recommendation': case 'health event': return this.#message(kind);
    }
  }

  /** Faults of EC2's API, through the fault proxy between nodesmith and moto. */
  async #ec2(kind: Ec2Fault): Promise<string | undefined> {
    const proxy = this.product.proxy;
    const action = this.prng.pick(ec2Actions);
    switch (kind) {
      case 'EC2 throttling': { const times = this.prng.int(3, 12); proxy.throttle(action, times); return `${action} ×${String(times)}`; }
      case 'EC2 5xx': { const [code, status] = this.prng.pick([['InternalError', 500], ['Unavailable', 503]] as const); const times = this.prng.int(2, 6); proxy.failAction(action, { times, code, status }); return `${action} ${String(status)} ${code} ×${String(times)}`; }
      case 'EC2 slow': { const times = this.prng.int(3, 10); const ms = this.prng.int(2_000, 8_000); proxy.slow(action, { times, ms }); return `${action} +${String(ms)} ms ×${String(times)}`; }
      case 'EC2 insufficient capacity': return this.#insufficientCapacity();
      case 'EC2 eventual consistency': return this.#lagLaunches();
    }
  }

  #kill(): string | undefined {
    if (this.#restarting !== undefined) return undefined;
    const pid = this.product.childPid();
    this.#restarting = this.product.crashAndRestart()
      .catch((error: unknown) => { this.#log(`nodesmith restart failed: ${error instanceof Error ? error.message : String(error)}`); })
      .finally(() => { this.#restarting = undefined; });
    return `pid ${String(pid)}`;
  }

  /**
   * SIGKILLs the replica holding the Lease: the standby must take it over once the dead leader's lease runs out
   * (the time is logged), then the killed replica starts again as the new standby.
   */
  async #killLeader(): Promise<string | undefined> {
    if (this.#restarting !== undefined) return undefined;
    const leader = await leaderReplica(this.product);
    if (leader === undefined) return undefined;
    const pid = leader.process.pid;
    const killedAt = Date.now();
    this.#restarting = (async () => {
      await leader.process.kill();
      try {
        const next = await waitFor('another replica to take the Lease', async () => {
          const holder = await leaderReplica(this.product);
          return holder !== undefined && holder !== leader ? holder : undefined;
        }, { timeoutMs: 90_000, intervalMs: 500 });
        this.#log(`${next.podName} took the Lease ${((Date.now() - killedAt) / 1000).toFixed(1)} s after ${leader.podName} was killed`);
      } finally {
        // Whatever the handover did, the replica comes back, as its Deployment would restart it.
        await leader.process.start().catch(async () => { await leader.process.kill(); await leader.process.start(); });
      }
    })()
      .catch((error: unknown) => { this.#log(`leader handover failed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`); })
      .finally(() => { this.#restarting = undefined; });
    return `${leader.podName} (pid ${String(pid)})`;
  }

  /** kube-apiserver stopped and started again on the same port and etcd: every client's connections and watches break. */
  #restartApiServer(): string | undefined {
    if (this.#apiRestart !== undefined) return undefined;
    const startedAt = Date.now();
    this.#apiRestart = this.product.stack.restartApiServer()
      .then(() => { this.#log(`API server ready again after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`); })
      .catch((error: unknown) => { this.#log(`API server restart failed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`); })
      .finally(() => { this.#apiRestart = undefined; });
    return 'SIGTERM and start';
  }

  /** Every connection between nodesmith and the API server reset at once (RST): its watches end mid-stream. */
  #dropWatches(): string | undefined {
    const service = this.product.apiService;
    if (service === undefined) return undefined;
    return `${String(service.resetAll())} connections reset`;
  }

  /**
   * For 2-3 minutes, pods need a pool whose nodes never become Ready: nodesmith must launch for them without
   * launching again and again (the invariants check that pool's NodeClaims). Lifted by deleting the pods and the pool.
   */
  async #neverReady(): Promise<string | undefined> {
    if (this.#neverReadyOn) return undefined;
    const pods = this.prng.int(1, 3);
    const forMs = this.prng.int(120_000, 180_000);
    this.#neverReadyOn = true;
    this.#invariants.breakPool(neverReadyPool, neverReadyPool);
    // The lift is set first: if creating the pool or the pods fails half-way, what was created still goes.
    this.#lifts.set(async () => {
      await removeBrokenPool(this.product);
      this.#invariants.mendPool(neverReadyPool);
      this.#neverReadyOn = false;
    }, Date.now() + forMs);
    await breakNewNodes(this.product, pods);
    return `${String(pods)} pods on pool ${neverReadyPool} for ${String(forMs / 1000)} s`;
  }

  /** The offering of a running instance runs out for 1-2 minutes: its next launches must fall back. */
  async #insufficientCapacity(): Promise<string | undefined> {
    const live = (await listInstances(this.product)).filter((i) => i.state === 'running');
    if (live.length === 0) return undefined;
    const victim = this.prng.pick(live);
    const capacityType = victim.lifecycle === 'spot' ? 'spot' : 'on-demand';
    const lift = this.product.proxy.failCapacity({ instanceType: victim.type, capacityType });
    const forMs = this.prng.int(60_000, 120_000);
    this.#lifts.set(() => { lift(); return Promise.resolve(); }, Date.now() + forMs);
    return `${capacityType} ${victim.type} for ${String(forMs / 1000)} s`;
  }

  /**
   * For 1-2 minutes, each instance launched stays out of DescribeInstances for 5-20 s: less than the 30 s a
   * launched NodeClaim is given before garbage collection may call it lost, as EC2's lag is.
   */
  #lagLaunches(): string {
    const lagMs = this.prng.int(5_000, 20_000);
    const forMs = this.prng.int(60_000, 120_000);
    this.product.proxy.lagLaunches(lagMs);
    this.#lifts.set(() => { this.product.proxy.lagLaunches(0); return Promise.resolve(); }, Date.now() + forMs);
    return `launches unseen for ${String(lagMs / 1000)} s, for ${String(forMs / 1000)} s`;
  }

  async #realNodes(): Promise<string[]> {
    const nodes = (await this.product.core.listNode({ labelSelector: '!nodesmith.io/launchable' })).items;
    return nodes.filter((n) => n.metadata?.deletionTimestamp === undefined && n.metadata?.annotations?.[notReadySince] === undefined && n.metadata?.annotations?.[neverReadyAnnotation] === undefined).map((n) => n.metadata?.name ?? '');
  }

  /** kwok reports the node Ready=False for 30-75 s, as a kubelet that lost its way and came back. */
  async #notReady(): Promise<string | undefined> {
    const nodes = await this.#realNodes();
    if (nodes.length === 0) return undefined;
    const node = this.prng.pick(nodes);
    await this.#annotate(node, new Date().toISOString());
    const forMs = this.prng.int(30_000, 75_000);
    this.#lifts.set(() => this.#annotate(node, null).catch((error: unknown) => {
      // A node deleted meanwhile has nothing left to lift; anything else (the API server restarting) is retried.
      if (!(error instanceof k8s.ApiException && error.code === 404)) throw error;
    }), Date.now() + forMs);
    return `${node} for ${String(forMs / 1000)} s`;
  }

  async #annotate(node: string, since: string | null): Promise<void> {
    await this.product.core.patchNode({ name: node, body: { metadata: { annotations: { [notReadySince]: since } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  }

  /** An EventBridge message about a node's instance (node names are instance ids), sent to the interruption queue. */
  async #message(kind: FaultKind): Promise<string | undefined> {
    const nodes = (await this.#realNodes()).filter((n) => n.startsWith('i-'));
    if (nodes.length === 0) return undefined;
    const id = this.prng.pick(nodes);
    const body = kind === 'spot interruption' ? spotInterruption(id) : kind === 'rebalance recommendation' ? rebalanceRecommendation(id) : scheduledChange([id]);
    const { QueueUrl } = await this.#sqs.send(new GetQueueUrlCommand({ QueueName: this.#queue }));
    await this.#sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    return id;
  }
}
