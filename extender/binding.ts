import type { Pod } from '../domain/core/pod.js';
import type { Amounts, ClusterModel, Materializer, PodBinder } from '../provisioner/index.js';
import { podKey } from '../domain/core/object-key.js';
import { scaleInRankAnnotations } from '../domain/disruption/scale-in-rank.js';
import { podDeletionCostKey } from '../domain/karpenter-keys.js';
import { noResources } from '../domain/resource-sums.js';
import { roomAtBind, shortfall } from './bind-room.js';
import type { ForwardedPod } from './bind-forward.js';

/** kube-scheduler's extender/v1 ExtenderBindingArgs. */
export interface BindArgs {
  readonly PodName: string;
  readonly PodNamespace: string;
  readonly PodUID: string;
  readonly Node: string;
}

export interface BindingDeps {
  readonly view: ClusterModel;
  readonly binder: PodBinder;
  /** Absent in a standalone extender: binds to virtual nodes then fail with a clear Error. */
  readonly materializer?: Materializer | undefined;
  /**
   * Give each bound pod its node's rank as its pod-deletion-cost (domain/disruption/scale-in-rank.ts), so a
   * scale-in empties whole nodes; `--pod-deletion-cost=none` turns it off.
   */
  readonly scaleInRank?: boolean;
  /**
   * How many materialised virtual → real names to remember for late binds, and how many pods bound but not yet seen
   * bound by the watch (oldest forgotten first).
   */
  readonly rememberedLaunches?: number;
}

/** How many pods filtered before the watch delivered them are held for their binds (a burst's worth). */
const podsBeforeWatch = 10_000;

function gaveUp(key: string, nodeName: string): string {
  return `kube-scheduler stopped waiting for the bind of pod ${key} to node ${nodeName} before it was sent; not sent`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Binds pods for kube-scheduler. A real node gets a Binding; a virtual node is materialised first, once
 * however many pods bind to it at the same time (single-flight), and each pod is bound to the node it became.
 * Returns the Error text for kube-scheduler ('' on success): a failure makes it retry the pod.
 */
export class Binding {
  readonly #deps: BindingDeps;
  readonly #inFlight = new Map<string, Promise<string>>();
  /** Virtual node name → real node name, kept after the virtual node is gone for binds that arrive late. */
  readonly #launched = new Map<string, string>();
  /**
   * Pods bound by this process that the watch has not shown bound yet, by key, with their node. A bind that
   * kube-scheduler stopped waiting for may still land; its retry, arriving before the watch shows the pod, must
   * neither move the pod's hold nor send a second Binding: it moved the hold once, and the node the first Binding
   * filled looked empty to the filter until the watch caught up.
   */
  readonly #landed = new Map<string, { readonly node: string; readonly uid: string }>();
  /**
   * Pods (key → UID) whose last bind waited out kube-scheduler unsent: their next bind is sent ahead of first tries.
   * At 10,000 pods, 5,950 binds were dropped so in one run, 2,124 pods more than once, the last bound 213 s late.
   */
  readonly #dropped = new Map<string, string>();
  /** The bind under way for each pod, by key, with the node kube-scheduler named. */
  readonly #binding = new Map<string, { readonly node: string; readonly done: Promise<string> }>();
  /**
   * Pods a filter call carried before the watch delivered them, by key: what their binds read (oldest forgotten
   * first; a pod filtered again moves to the back).
   */
  readonly #beforeWatch = new Map<string, { readonly pod: Pod; readonly requests: Amounts }>();

  constructor(deps: BindingDeps) {
    this.#deps = deps;
  }

  /**
   * kube-scheduler can filter and bind a pod before the pod watch delivers it; the filter call carries the whole pod,
   * and the bind needs its annotations (a pod-deletion-cost of its own is kept), so it is held here until then.
   */
  notePod(pod: Pod, requests: Amounts): void {
    const key = podKey(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    if (this.#deps.view.pod(key) !== undefined) return;
    // Only what the bind reads: a pod that never binds must not hold its whole object here.
    const own = pod.metadata.annotations?.[podDeletionCostKey];
    this.#beforeWatch.delete(key);
    this.#beforeWatch.set(key, {
      pod: { metadata: { ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }), ...(own === undefined ? {} : { annotations: { [podDeletionCostKey]: own } }) }, spec: { containers: [] } },
      requests,
    });
    for (const oldest of this.#beforeWatch.keys()) {
      if (this.#beforeWatch.size <= podsBeforeWatch) break;
      this.#beforeWatch.delete(oldest);
    }
  }

  /**
   * What this replica knows of the pod for a bind it hands to the leader (bind-forward.ts), whose watch may not have
   * delivered the pod yet: its requests and its own pod-deletion-cost. Undefined when this replica knows nothing.
   */
  forwardable(key: string, uid: string): ForwardedPod | undefined {
    const requests = this.#requestsOf(key, uid);
    if (requests === undefined) return undefined;
    const own = this.#podOf(key, uid)?.metadata.annotations?.[podDeletionCostKey];
    return { Requests: requests, ...(own === undefined ? {} : { DeletionCost: own }) };
  }

  /** A bind handed over by another replica: what it knew of the pod stands in until this replica's watch has it. */
  noteForwarded(args: BindArgs, forwarded: ForwardedPod): void {
    const annotations = forwarded.DeletionCost === undefined ? undefined : { [podDeletionCostKey]: forwarded.DeletionCost };
    this.notePod({ metadata: { name: args.PodName, namespace: args.PodNamespace, uid: args.PodUID, ...(annotations === undefined ? {} : { annotations }) }, spec: { containers: [] } }, forwarded.Requests);
  }

  /**
   * The pod's requests as the watch has them, else as the filter call carried them (the same UID). Without them
   * a bind would hold nothing and skip the room check: at 10,000 pods the pod watch lagged kube-scheduler's, and
   * pods bound straight to a just-launched node before the model saw them overfilled it beside the pods binding
   * through its virtual node (38 CPU on a 31.85-CPU node).
   */
  #requestsOf(key: string, uid: string): Amounts | undefined {
    const known = this.#deps.view.requestsOf(key);
    // The watch has the pod now: the early copy is done with (the model's pod serves #podOf too).
    if (known !== undefined) {
      this.#beforeWatch.delete(key);
      return known;
    }
    const early = this.#beforeWatch.get(key);
    return early?.pod.metadata.uid === uid ? early.requests : undefined;
  }

  /**
   * `signal` aborts when kube-scheduler stops waiting for this call (its extender httpTimeout): a Binding not yet
   * sent by then is not sent, and kube-scheduler, which has already forgotten the pod's place, tries the pod again.
   *
   * One bind per pod at a time. kube-scheduler's retry of a pod whose earlier bind is still on its way would move
   * the pod's hold to the new node while the earlier Binding may yet land on the old one, into room given away
   * meanwhile; so the retry gets the earlier bind's outcome when it names the same node, else an error.
   */
  async bind(args: BindArgs, signal?: AbortSignal): Promise<string> {
    const key = podKey(args.PodNamespace, args.PodName);
    const landed = this.#landedOn(key, args.PodUID);
    if (landed !== undefined) {
      // Named by the node or by the virtual node it was launched for.
      return landed === args.Node || landed === this.#launched.get(args.Node) ? '' : `pod ${key} was bound to node ${landed} by an earlier bind that kube-scheduler stopped waiting for; it drops the pod once its watch shows it bound`;
    }
    const earlier = this.#binding.get(key);
    if (earlier !== undefined) {
      if (earlier.node === args.Node) return earlier.done;
      return `an earlier bind of pod ${key} to node ${earlier.node} is still on its way to the API server; kube-scheduler retries the pod`;
    }
    const done = this.#bindOnce(args, key, signal);
    this.#binding.set(key, { node: args.Node, done });
    try {
      return await done;
    } finally {
      if (this.#binding.get(key)?.done === done) this.#binding.delete(key);
    }
  }

  #bindOnce(args: BindArgs, key: string, signal: AbortSignal | undefined): Promise<string> {
    const { view } = this.#deps;
    const entry = view.node(args.Node);
    // Launched earlier by this process, or (after a restart, or by another replica) as the plan now says.
    const launched = this.#launched.get(args.Node) ?? view.plan(args.Node)?.plan.materializedNode;
    if (launched === undefined && entry?.isVirtual !== true) {
      if (entry === undefined) return Promise.resolve(`node ${args.Node} is not in the extender cache yet; retry`);
      return this.#bindToReal(args, key, signal);
    }
    const materializer = this.#deps.materializer;
    if (materializer === undefined) return Promise.resolve(`node ${args.Node} is virtual and this extender has no materializer; it cannot launch it`);
    const crowded = launched === undefined ? this.#crowdedOut(key, args) : undefined;
    if (crowded !== undefined) return Promise.resolve(crowded);
    return this.#bindThroughVirtual(args, key, launched ?? (() => this.#materialize(materializer, args.Node)), signal);
  }

  /** Holds the virtual node's room for the pod while the launch runs (filter must not promise it twice), then binds. */
  async #bindThroughVirtual(args: BindArgs, key: string, realNode: string | (() => Promise<string>), signal: AbortSignal | undefined): Promise<string> {
    const { view } = this.#deps;
    const requests = this.#requestsOf(key, args.PodUID) ?? noResources;
    view.reserve(key, args.Node, requests);
    try {
      const nodeName = typeof realNode === 'string' ? realNode : await realNode();
      this.#holdOnRealNode(key, nodeName, requests);
      const error = await this.#bindTo(args, nodeName, signal, args.Node);
      if (error !== '') view.release(key);
      return error;
    } catch (error) {
      view.release(key);
      return `materialising virtual node ${args.Node}: ${messageOf(error)}`;
    }
  }

  /**
   * A pod the plan did not place on this virtual node came because the filter saw room left beside the plan's pods;
   * another pod may have taken that room since (two binds in flight). The launch is sized for the plan and the
   * pod is bound to the real node without kube-scheduler's own check, so it must still fit: else the bind fails and
   * kube-scheduler tries the pod again.
   */
  #crowdedOut(key: string, args: BindArgs): string | undefined {
    const { view } = this.#deps;
    const virtualName = args.Node;
    const entry = view.plan(virtualName);
    if (entry === undefined || entry.assigned.has(key)) return undefined;
    const short = shortfall(this.#requestsOf(key, args.PodUID) ?? noResources, view.roomLeft(entry, virtualName), entry.room, 'planned room');
    return short === undefined ? undefined : `virtual node ${virtualName} has no room left for pod ${key} beside the pods planned for it (${short}); kube-scheduler retries the pod`;
  }

  /**
   * From here the pod is on its way to the real node, which kube-scheduler's cache does not know yet: its room is
   * held there, so the filter does not let kube-scheduler place another pod into it meanwhile. A pod the model
   * already sees bound (a retried bind) holds nothing: no later event would release it.
   */
  #holdOnRealNode(key: string, nodeName: string, requests: Amounts): void {
    if (this.#deps.view.boundNodeOf(key) === undefined) this.#deps.view.reserve(key, nodeName, requests);
  }

  /**
   * A pod kube-scheduler put on a real node holds its room there from now until the watch shows it bound: the
   * filter's next calls see it (kube-scheduler's cache does, the model would not until then), and the hold the
   * filter noted on every node it passed (tentative-binds.ts) gives way to this one.
   */
  async #bindToReal(args: BindArgs, key: string, signal: AbortSignal | undefined): Promise<string> {
    const { view } = this.#deps;
    if (view.boundNodeOf(key) === undefined) view.reserve(key, args.Node, this.#requestsOf(key, args.PodUID) ?? noResources);
    const error = await this.#bindTo(args, args.Node, signal);
    if (error !== '') view.release(key);
    return error;
  }

  async #bindTo(args: BindArgs, nodeName: string, signal: AbortSignal | undefined, viaVirtual?: string): Promise<string> {
    const key = podKey(args.PodNamespace, args.PodName);
    // A retried bind that already took effect is a success, not a conflict.
    if (this.#deps.view.boundNodeOf(key) === nodeName) return '';
    if (signal?.aborted === true) return this.#droppedUnsent(key, args.PodUID, nodeName);
    const requests = this.#requestsOf(key, args.PodUID);
    const full = requests === undefined ? undefined : roomAtBind(this.#deps.view, { key, requests }, nodeName, viaVirtual);
    if (full !== undefined) {
      this.#noteLostPlace(key, nodeName, viaVirtual);
      return full;
    }
    try {
      const annotations = this.#deps.scaleInRank === true ? scaleInRankAnnotations(this.#podOf(key, args.PodUID), nodeName) : undefined;
      const retried = this.#dropped.get(key) === args.PodUID ? { retried: true } : {};
      await this.#deps.binder.bind({ namespace: args.PodNamespace, name: args.PodName, uid: args.PodUID, nodeName, annotations, ...retried }, signal);
      this.#dropped.delete(key);
      this.#deps.view.notePlaced(key, nodeName);
      this.#remember(this.#landed, key, { node: nodeName, uid: args.PodUID });
      return '';
    } catch (error) {
      if (this.#deps.view.boundNodeOf(key) === nodeName) return '';
      // The binder sends nothing once the caller has gone; a bind already sent ends with its own outcome.
      if (error instanceof Error && error.name === 'NotSentError') return this.#droppedUnsent(key, args.PodUID, nodeName);
      return `binding pod ${key} to node ${nodeName}: ${messageOf(error)}`;
    }
  }

  /** kube-scheduler stopped waiting before the Binding was sent: noted, so the pod's next bind goes ahead. */
  #droppedUnsent(key: string, uid: string, nodeName: string): string {
    this.#remember(this.#dropped, key, uid);
    return gaveUp(key, nodeName);
  }

  /** A pod refused the room its own plan gave it on this node: the planner plans it again (noteNoRoomInPlan). */
  #noteLostPlace(key: string, nodeName: string, viaVirtual: string | undefined): void {
    const { view } = this.#deps;
    const real = view.node(nodeName);
    const planNode = viaVirtual ?? (real === undefined ? undefined : view.materializationOf(real)?.[0]);
    if (planNode !== undefined && view.plan(planNode)?.assigned.has(key) === true) view.noteNoRoomInPlan(key, planNode);
  }

  /** The pod as the model knows it, else as a filter call carried it (the same UID). */
  #podOf(key: string, uid: string): Pod | undefined {
    const early = this.#beforeWatch.get(key);
    return this.#deps.view.pod(key) ?? (early?.pod.metadata.uid === uid ? early.pod : undefined);
  }

  #materialize(materializer: Materializer, virtualName: string): Promise<string> {
    const running = this.#inFlight.get(virtualName);
    if (running !== undefined) return running;
    const launch = materializer.materialize(virtualName).then(
      ({ nodeName }) => {
        this.#remember(this.#launched, virtualName, nodeName);
        return nodeName;
      },
    ).finally(() => {
      // A failed launch is forgotten so the next bind tries again; a successful one is remembered above.
      this.#inFlight.delete(virtualName);
    });
    this.#inFlight.set(virtualName, launch);
    return launch;
  }

  /** Remembers `value` under `key`, forgetting the oldest entries past the limit. */
  #remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.set(key, value);
    const limit = this.#deps.rememberedLaunches ?? 10_000;
    for (const oldest of map.keys()) {
      if (map.size <= limit) break;
      map.delete(oldest);
    }
  }

  /**
   * Where this process bound the pod, while the watch has not shown it yet; forgotten once it has. A pod of the
   * same name made again (another UID) is another pod.
   */
  #landedOn(key: string, uid: string): string | undefined {
    const landed = this.#landed.get(key);
    if (landed?.uid !== uid) return undefined;
    if (this.#deps.view.boundNodeOf(key) === undefined) return landed.node;
    this.#landed.delete(key);
    return undefined;
  }

  /** Launches under way, for tests and the readiness of a graceful shutdown. */
  get launchesInFlight(): number {
    return this.#inFlight.size;
  }
}
