import { isFinished, isLive, isServing, type ClusterSnapshot, type PodView } from './cluster-snapshot.js';
import { Episodes, type Graces, type Violation } from './violation.js';

type Found = Omit<Violation, 'atMs'>;

const ofApp = (pods: readonly PodView[], app: string): PodView[] => pods.filter((p) => p.app === app);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(0)} s`;

/**
 * The soak's invariants over one snapshot of the cluster. Most may be broken for a moment while the product works
 * (a pod evicted for a drift waits for its new node): those count once they have held longer than their grace.
 * Others (a PDB broken, a node over its allocatable, a daemon without room) count at once.
 */
export class Invariants {
  private readonly graces: Graces;
  private readonly startMs: number;
  readonly #episodes = new Episodes();
  /** When the harness itself last changed each app (a scale, a new PDB): a shortfall starts no earlier. */
  readonly #changedAt = new Map<string, number>();
  /** PDB-guarded apps that have had all their pods since the harness last changed them. */
  readonly #settled = new Set<string>();
  readonly #reportedAtOnce = new Set<string>();
  /** Pools whose nodes a fault keeps from ever becoming Ready, with the app whose pods need them. */
  readonly #brokenPools = new Map<string, string>();

  constructor(graces: Graces, startMs: number) {
    this.graces = graces;
    this.startMs = startMs;
  }

  /** The harness changed this app's Deployment or PDB: what follows is its doing until the app settles again. */
  noteChange(app: string, atMs = Date.now()): void {
    this.#changedAt.set(app, atMs);
    this.#settled.delete(app);
  }

  /**
   * A fault made every node of `pool` never become Ready: `app`'s pods, which need them, are not expected to serve
   * until it is lifted (their Deployment is exempt from the missing-pods check), while the pool itself must not grow
   * beyond one NodeClaim per pod (no runaway scale-up while nodes never become ready).
   */
  breakPool(pool: string, app: string): void {
    this.#brokenPools.set(pool, app);
  }

  /** The fault is lifted (its app and pool deleted). */
  mendPool(pool: string): void {
    this.#brokenPools.delete(pool);
  }

  check(s: ClusterSnapshot): Violation[] {
    const found = [
      ...this.#missingPods(s), ...this.#unschedulable(s), ...this.#brokenPdbs(s), ...this.#overcommitted(s), ...this.#daemonsWithoutRoom(s),
      ...this.#fleet(s), ...this.#strandedTaints(s), ...this.#runaway(s), ...this.#runawayOnBrokenPools(s),
    ];
    return found.map((f) => ({ ...f, atMs: s.atMs - this.startMs }));
  }

  /** A condition without grace is reported when it appears, and again only after it went away. */
  #atOnce(family: string, holding: readonly Found[]): Found[] {
    const keys = new Set(holding.map((f) => `${family}:${f.objects.join(',')}`));
    for (const key of [...this.#reportedAtOnce].filter((k) => k.startsWith(`${family}:`) && !keys.has(k))) this.#reportedAtOnce.delete(key);
    return holding.filter((f) => {
      const key = `${family}:${f.objects.join(',')}`;
      if (this.#reportedAtOnce.has(key)) return false;
      this.#reportedAtOnce.add(key);
      return true;
    });
  }

  #missingPods(s: ClusterSnapshot): Found[] {
    const exempt = new Set(this.#brokenPools.values());
    const short = s.deployments.filter((d) => !exempt.has(d.name) && ofApp(s.pods, d.name).filter(isServing).length < d.replicas);
    const due = this.#episodes.observe('missing', short.map((d) => d.name), { nowMs: s.atMs, graceMs: this.graces.podMissingMs, startedAfterMs: (app) => this.#changedAt.get(app) ?? 0 });
    return due.map(({ key, forMs }) => {
      const replicas = s.deployments.find((d) => d.name === key)?.replicas ?? 0;
      const pods = ofApp(s.pods, key);
      const waiting = pods.filter((p) => !isServing(p));
      return {
        invariant: 'deployment-pod-missing', objects: [`deployment/${key}`, ...waiting.map((p) => `pod/${p.key}(${p.phase}${p.deleting ? ',deleting' : ''}${p.node === undefined ? '' : ` on ${p.node}`})`)],
        message: `${String(replicas - pods.filter(isServing).length)} of ${String(replicas)} pods missing for ${seconds(forMs)}`,
      };
    });
  }

  /**
   * A pod kube-scheduler has found no node for, for longer than the grace, while a NodePool could serve it (issue 37:
   * no pod left behind), timed from its condition's lastTransitionTime. Every pool serves its apps but one a fault
   * broke on purpose: its pods wait for the lift, as #missingPods exempts them. A pod whose Deployment is gone (the
   * lift deletes it, and the garbage collector its pods a moment later) is wanted by no one, so it is not left behind.
   */
  #unschedulable(s: ClusterSnapshot): Found[] {
    const exempt = new Set(this.#brokenPools.values());
    const wanted = new Set(s.deployments.map((d) => d.name));
    // Job pods carry no app label: a Job wants its pods until they finish.
    const served = (p: PodView): boolean => p.app === undefined || (wanted.has(p.app) && !exempt.has(p.app));
    const waiting = s.pods.filter((p) => p.unschedulableSinceMs !== undefined && !p.deleting && !isFinished(p) && served(p));
    const since = new Map(waiting.map((p) => [p.key, p.unschedulableSinceMs]));
    return this.#episodes.observe('unschedulable', waiting.map((p) => p.key), { nowMs: s.atMs, graceMs: this.graces.unschedulableMs, startedAtMs: (key) => since.get(key) })
      .map(({ key, forMs }) => ({ invariant: 'pod-unschedulable-too-long', objects: [`pod/${key}`], message: `Unschedulable for ${seconds(forMs)} while a NodePool could serve it` }));
  }

  /** maxUnavailable is the PDBs' only form here: below replicas − maxUnavailable after the app settled is a violation. */
  #brokenPdbs(s: ClusterSnapshot): Found[] {
    const broken: Found[] = [];
    for (const pdb of s.pdbs) {
      const replicas = s.deployments.find((d) => d.name === pdb.app)?.replicas ?? 0;
      const serving = ofApp(s.pods, pdb.app).filter(isServing);
      if (serving.length >= replicas) this.#settled.add(pdb.app);
      if (!this.#settled.has(pdb.app) || serving.length >= replicas - pdb.maxUnavailable) continue;
      const gone = ofApp(s.pods, pdb.app).filter((p) => !isServing(p));
      broken.push({ invariant: 'pdb-violated', objects: [`pdb/${pdb.name}`, ...gone.map((p) => `pod/${p.key}(${p.phase}${p.deleting ? ',deleting' : ''})`)], message: `${String(serving.length)} of ${String(replicas)} pods serving, maxUnavailable ${String(pdb.maxUnavailable)}` });
    }
    return this.#atOnce('pdb', broken);
  }

  #overcommitted(s: ClusterSnapshot): Found[] {
    return this.#atOnce('overcommit', s.overcommitted.map((line) => ({ invariant: 'node-over-allocatable', objects: [`node/${line.split(':')[0] ?? ''}`], message: line })));
  }

  /** A real node whose pods leave no room for a daemon it must run: the plan that filled it forgot the DaemonSet. */
  #daemonsWithoutRoom(s: ClusterSnapshot): Found[] {
    return this.#atOnce('daemon', s.daemonsWithoutRoom.map((d) => ({ invariant: 'daemon-pod-without-room', objects: [`pod/${d.pod}`, `node/${d.node}`], message: d.message })));
  }

  #fleet(s: ClusterSnapshot): Found[] {
    const claimNames = new Set(s.claims.map((c) => c.name));
    const heldIds = new Set(s.claims.map((c) => c.instanceId));
    const unheld = s.instances.filter((i) => isLive(i) && !heldIds.has(i.id) && !claimNames.has(i.tags['karpenter.sh/nodeclaim'] ?? ''));
    const liveIds = new Set(s.instances.filter(isLive).map((i) => i.id));
    const lost = s.claims.filter((c) => c.instanceId !== undefined && !c.deleting && !liveIds.has(c.instanceId));
    const leaks = this.#episodes.observe('leak', unheld.map((i) => i.id), { nowMs: s.atMs, graceMs: this.graces.fleetMs }).map(({ key, forMs }) => {
      const i = unheld.find((x) => x.id === key);
      return { invariant: 'instance-without-nodeclaim', objects: [`instance/${key}`, `tag nodeclaim=${i?.tags['karpenter.sh/nodeclaim'] ?? '-'}`], message: `${i?.state ?? ''} ${i?.type ?? ''} held by no NodeClaim for ${seconds(forMs)}` };
    });
    const losses = this.#episodes.observe('lost', lost.map((c) => c.name), { nowMs: s.atMs, graceMs: this.graces.fleetMs }).map(({ key, forMs }) => {
      const c = lost.find((x) => x.name === key);
      const state = s.instances.find((i) => i.id === c?.instanceId)?.state ?? 'absent';
      return { invariant: 'nodeclaim-without-instance', objects: [`nodeclaim/${key}`, `instance/${c?.instanceId ?? ''}`], message: `launched NodeClaim's instance is ${state} for ${seconds(forMs)}` };
    });
    return [...leaks, ...losses];
  }

  /** A node nodesmith tainted (karpenter.sh/disrupted) or cordoned, whose NodeClaim is not being deleted. */
  #strandedTaints(s: ClusterSnapshot): Found[] {
    const deleting = new Set(s.claims.filter((c) => c.deleting).map((c) => c.nodeName));
    const stranded = s.nodes.filter((n) => !n.virtual && (n.disruptedTaint || n.unschedulable) && !deleting.has(n.name));
    return this.#episodes.observe('taint', stranded.map((n) => n.name), { nowMs: s.atMs, graceMs: this.graces.taintMs }).map(({ key, forMs }) => {
      const n = stranded.find((x) => x.name === key);
      return { invariant: 'node-left-tainted', objects: [`node/${key}`], message: `${n?.disruptedTaint === true ? 'karpenter.sh/disrupted taint' : 'cordoned'} for ${seconds(forMs)} with no NodeClaim deletion` };
    });
  }

  /** Each NodeClaim should hold at least one pod: more NodeClaims than pods (plus a margin), for long, is a runaway. */
  #runaway(s: ClusterSnapshot): Found[] {
    const claims = s.claims.filter((c) => !c.deleting);
    const pods = s.pods.filter((p) => !isFinished(p) && !p.deleting);
    const excess = claims.length > pods.length + this.graces.runawayMargin ? ['cluster'] : [];
    return this.#episodes.observe('runaway', excess, { nowMs: s.atMs, graceMs: this.graces.runawayMs }).map(({ forMs }) => ({
      invariant: 'runaway-scale-up', objects: claims.map((c) => `nodeclaim/${c.name}`),
      message: `${String(claims.length)} NodeClaims for ${String(pods.length)} pods (margin ${String(this.graces.runawayMargin)}) for ${seconds(forMs)}`,
    }));
  }

  /** A pool whose nodes never become Ready: its NodeClaims must stay at most one per pod that waits for them. */
  #runawayOnBrokenPools(s: ClusterSnapshot): Found[] {
    const over = [...this.#brokenPools].filter(([pool, app]) => {
      const claims = s.claims.filter((c) => c.nodePool === pool && !c.deleting).length;
      return claims > ofApp(s.pods, app).filter((p) => !isFinished(p) && !p.deleting).length;
    });
    return this.#episodes.observe('runaway-broken', over.map(([pool]) => pool), { nowMs: s.atMs, graceMs: this.graces.runawayMs }).map(({ key, forMs }) => {
      const claims = s.claims.filter((c) => c.nodePool === key && !c.deleting);
      return {
        invariant: 'runaway-scale-up', objects: [`nodepool/${key}`, ...claims.map((c) => `nodeclaim/${c.name}`)],
        message: `${String(claims.length)} NodeClaims of a pool whose nodes never become Ready, for ${String(ofApp(s.pods, this.#brokenPools.get(key) ?? '').length)} pods, for ${seconds(forMs)}`,
      };
    });
  }
}
