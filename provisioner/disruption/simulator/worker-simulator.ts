import { Worker } from 'node:worker_threads';
import type { InstanceType } from '../../../domain/instance-types/instance-type.js';
import type { ConsolidationWorld } from '../../../domain/disruption/consolidation/consolidation-world.js';
import type { SimulationResult, SnapshotNode } from '../../../domain/simulation/simulation-input.js';
import type { Pod } from '../../../domain/core/pod.js';
import { sameNodeFields } from '../../../domain/simulation/standing-cluster.js';
import { fromWire, type FromWorker, type ToWorker } from './worker-protocol.js';
import type { SimulationQuestion } from '../../../domain/disruption/consolidation/consolidation-world.js';
import type { DisruptionSimulator } from './simulator.js';

export interface WorkerSimulatorOptions {
  /** Nodes or instance types per message: each message is cloned on the calling thread, so it stays short. */
  readonly chunk?: number;
  /** A simulation that has not answered by then is abandoned and the worker restarted (default 60 s). */
  readonly timeoutMs?: number;
  /** The worker's script, built JavaScript (default: worker-thread beside this module; the bundle's test). */
  readonly entry?: URL;
}

interface Waiting {
  readonly resolve: (result: FromWorker) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * What this side remembers of a node it sent: the snapshot without its pods, and the pods by identity only. Holding
 * the pods themselves kept every pod of the last pass alive after the model had replaced it (the heap after a
 * 1,000-pod burst held each pod twice).
 */
interface SentNode {
  readonly fields: Omit<SnapshotNode, 'pods'>;
  readonly podIds: readonly number[];
}

/** What the worker holds, as this side sent it. */
interface Sent {
  readonly worker: Worker;
  /** Calls this worker holds, by id. */
  readonly waiting: Map<number, Waiting>;
  readonly nodes: Map<string, SentNode>;
  catalog: readonly InstanceType[] | undefined;
  catalogId: number;
  /** Weakly: the world is the pass's, and its nodes hold every pod; only "is it the same world" is asked. */
  world: WeakRef<ConsolidationWorld> | undefined;
}

function pause(): Promise<void> {
  return new Promise((resolve) => { setImmediate(resolve); });
}

/**
 * Under tsx (tests, `npm run`) the worker runs the TypeScript source with tsx registered in the thread: a worker does
 * not inherit the parent's module hooks. Built (dist/), it runs the compiled file.
 */
function spawn(script: URL | undefined): Worker {
  if (script !== undefined) return new Worker(script);
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(source ? './worker-thread.ts' : './worker-thread.js', import.meta.url);
  if (!source) return new Worker(entry);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`, { eval: true });
}

/**
 * The disruption simulations on a worker thread, so a pass never holds the event loop the extender's filter and the
 * termination controller run on. The worker keeps a copy of the pass's world between calls: a pass sends the nodes
 * whose snapshot changed (compared as the planner's standing cluster compares them), a question sends only its
 * pods. Messages are chunked and the calling thread yields between chunks. One question runs at a time; a worker
 * that dies or stops answering is restarted, and the calls it held are rejected with the reason.
 */
export class WorkerSimulator implements DisruptionSimulator {
  readonly #chunk: number;
  readonly #timeoutMs: number;
  readonly #entry: URL | undefined;
  /** What crossed to the worker so far (the benchmark prints it; tests check that a pass sends only changes). */
  readonly sentCounts = { nodes: 0, instanceTypes: 0, worlds: 0, questions: 0 };
  #sent: Sent | undefined;
  /** An id per pod object sent: the model replaces a pod's object whenever the pod changes, so ids compare as identity. */
  readonly #podIds = new WeakMap<Pod, number>();
  #nextPodId = 1;
  #nextId = 1;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: WorkerSimulatorOptions = {}) {
    this.#chunk = options.chunk ?? 100;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#entry = options.entry;
  }

  simulate(world: ConsolidationWorld, question: SimulationQuestion): Promise<SimulationResult> {
    const run = this.#queue.then(() => this.#ask(world, question));
    // Settled to nothing: the queue must not keep the last answer (and its pods) alive.
    this.#queue = run.then(() => undefined, () => undefined);
    return run;
  }

  async close(): Promise<void> {
    const sent = this.#sent;
    this.#sent = undefined;
    if (sent !== undefined) await sent.worker.terminate();
  }

  async #ask(world: ConsolidationWorld, question: SimulationQuestion): Promise<SimulationResult> {
    const sent = await this.#sync(world);
    const id = this.#nextId++;
    this.sentCounts.questions++;
    const reply = await this.#request(sent, id, {
      kind: 'simulate', id,
      question: { without: [...question.without], pods: question.pods, ...(question.volumeRequirements === undefined ? {} : { volumeRequirements: [...question.volumeRequirements] }) },
    });
    if ('error' in reply) throw new Error(`simulation failed: ${reply.error}`);
    return fromWire(reply.result, question.pods);
  }

  #request(sent: Sent, id: number, message: ToWorker): Promise<FromWorker> {
    return new Promise<FromWorker>((resolve, reject) => {
      if (this.#sent !== sent) {
        reject(new Error('the simulation worker stopped while the pass was sent to it'));
        return;
      }
      const timer = setTimeout(() => { this.#fail(sent, new Error(`the simulation worker did not answer within ${String(this.#timeoutMs)} ms`)); }, this.#timeoutMs);
      sent.waiting.set(id, { resolve, reject, timer });
      sent.worker.postMessage(message);
    });
  }

  /** Brings the worker's copy up to `world`; nothing is sent when it already holds that world. */
  async #sync(world: ConsolidationWorld): Promise<Sent> {
    const sent = this.#sent ?? this.#start();
    if (sent.world?.deref() === world) return sent;
    if (sent.catalog !== world.instanceTypes) await this.#sendCatalog(sent, world.instanceTypes);
    await this.#sendNodes(sent, world.nodes);
    const rest = {
      daemonSets: world.daemonSets, nodePools: world.nodePools, unavailableOfferings: [...(world.unavailableOfferings ?? [])],
      ...(world.nodeClasses === undefined ? {} : { nodeClasses: world.nodeClasses }),
      ...(world.options === undefined ? {} : { options: world.options }),
      ...(world.volumeRequirements === undefined ? {} : { volumeRequirements: [...world.volumeRequirements] }),
    };
    sent.worker.postMessage({ kind: 'world', catalog: sent.catalogId, order: world.nodes.map((n) => n.name), rest } satisfies ToWorker);
    sent.world = new WeakRef(world);
    this.sentCounts.worlds++;
    return sent;
  }

  /** The nodes whose snapshot changed since the last pass, and the names of those gone. */
  async #sendNodes(sent: Sent, nodes: readonly SnapshotNode[]): Promise<void> {
    const upserts = nodes.filter((n) => { const before = sent.nodes.get(n.name); return before === undefined || !this.#sameAsSent(before, n); });
    const names = new Set(nodes.map((n) => n.name));
    const removes = [...sent.nodes.keys()].filter((name) => !names.has(name));
    for (const name of removes) sent.nodes.delete(name);
    for (let i = 0; i < upserts.length || (i === 0 && removes.length > 0); i += this.#chunk) {
      sent.worker.postMessage({ kind: 'nodes', upserts: upserts.slice(i, i + this.#chunk), removes: i === 0 ? removes : [] } satisfies ToWorker);
      await pause();
    }
    for (const { pods, ...fields } of upserts) sent.nodes.set(fields.name, { fields, podIds: pods.map((pod) => this.#podId(pod)) });
    this.sentCounts.nodes += upserts.length;
  }

  /** As `unchanged` compares two snapshots (pods by identity), against what was sent. */
  #sameAsSent(before: SentNode, after: SnapshotNode): boolean {
    const { podIds } = before;
    return podIds.length === after.pods.length && after.pods.every((pod, i) => this.#podIds.get(pod) === podIds[i]) && sameNodeFields(before.fields, after);
  }

  #podId(pod: Pod): number {
    let id = this.#podIds.get(pod);
    if (id === undefined) {
      id = this.#nextPodId++;
      this.#podIds.set(pod, id);
    }
    return id;
  }

  async #sendCatalog(sent: Sent, types: readonly InstanceType[]): Promise<void> {
    sent.catalogId++;
    for (let i = 0; i === 0 || i < types.length; i += this.#chunk) {
      sent.worker.postMessage({ kind: 'types', catalog: sent.catalogId, types: types.slice(i, i + this.#chunk), first: i === 0 } satisfies ToWorker);
      await pause();
    }
    sent.catalog = types;
    this.sentCounts.instanceTypes += types.length;
  }

  #start(): Sent {
    const worker = spawn(this.#entry);
    // The worker must not keep the process alive: a stopped controller leaves nothing running.
    worker.unref();
    const sent: Sent = { worker, waiting: new Map(), nodes: new Map(), catalog: undefined, catalogId: 0, world: undefined };
    worker.on('message', (reply: FromWorker) => {
      const waiting = sent.waiting.get(reply.id);
      if (waiting === undefined) return;
      sent.waiting.delete(reply.id);
      clearTimeout(waiting.timer);
      waiting.resolve(reply);
    });
    worker.on('error', (e) => { this.#fail(sent, new Error(`the simulation worker failed: ${e.message}`)); });
    worker.on('exit', (code) => { this.#fail(sent, new Error(`the simulation worker exited (code ${String(code)})`)); });
    this.#sent = sent;
    return sent;
  }

  /** Rejects every call the worker held and forgets it; the next call starts a fresh worker with a full copy. */
  #fail(sent: Sent, error: Error): void {
    if (this.#sent === sent) this.#sent = undefined;
    for (const [id, waiting] of sent.waiting) {
      clearTimeout(waiting.timer);
      sent.waiting.delete(id);
      waiting.reject(error);
    }
    void sent.worker.terminate();
  }
}
