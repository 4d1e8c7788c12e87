import type { Clock } from '../../domain/clock.js';
import type { Lease } from '../../domain/core/lease.js';
import type { ControllerLogger } from '../runtime/controller-runner.js';
import { silentLogger } from '../runtime/controller-runner.js';
import { isNotFound, statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';


/** The three Lease calls the elector makes (a narrow port, so tests can fake the API server). */
export interface LeaseApi {
  readNamespacedLease(param: { name: string; namespace: string }): Promise<Lease>;
  createNamespacedLease(param: { namespace: string; body: Lease }): Promise<Lease>;
  replaceNamespacedLease(param: { name: string; namespace: string; body: Lease }): Promise<Lease>;
}

/** LeaseApi over the API server. */
export function kubeLeaseApi(api: KubeRest): LeaseApi {
  const leases = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' } as const;
  return {
    readNamespacedLease: ({ name, namespace }) => api.get<Lease>({ ...leases, namespace, name }),
    createNamespacedLease: ({ namespace, body }) => api.create<Lease>({ ...leases, namespace }, body),
    replaceNamespacedLease: ({ name, namespace, body }) => api.replace<Lease>({ ...leases, namespace, name }, body),
  };
}

export interface LeaderElectorOptions {
  readonly api: LeaseApi;
  readonly clock: Clock;
  readonly namespace: string;
  /** Lease name, e.g. "nodesmith-provisioner". */
  readonly name: string;
  /** Unique per process, e.g. the pod name plus a random suffix. */
  readonly identity: string;
  /** How long a lease stays valid without renewal (default 15 s, as client-go's and Karpenter's). */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down (default 10 s). */
  readonly renewDeadlineMs?: number;
  /** How often to try to acquire or renew (default 2 s). */
  readonly retryPeriodMs?: number;
  /**
   * Written on the Lease while this replica holds it (and taken off when it lets go), so the other replicas can read
   * what the holder publishes: the URL of its extender (leader()).
   */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly onStartedLeading?: () => void;
  readonly onStoppedLeading?: () => void;
  readonly log?: ControllerLogger;
}

/**
 * The API server stores Lease times as MicroTime, which must carry exactly six fractional digits;
 * toISOString() gives three and would be refused.
 */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const component = 'leader.election';


/** How often every replica tries to acquire or renew the Lease (client-go's retry period). */
export const leaseRetryPeriodMs = 2000;

/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection: every
 * replica tries to acquire or renew each retry period; writes carry the Lease's resourceVersion,
 * so of two racing replicas only one succeeds. Expiry is judged by when *this* process last saw
 * the record change (not by the holder's timestamps), so clock skew between replicas cannot make
 * two leaders. Gate leader-only loops on isLeader().
 */
/** Another replica holding the Lease, as last read: its identity and what it wrote on the Lease. */
export interface LeaseHolder {
  readonly identity: string;
  readonly annotations: Readonly<Record<string, string>>;
}

export class LeaderElector {
  readonly #o: LeaderElectorOptions;
  /** The other replica that held the Lease at the last read, while it held it. */
  #other: LeaseHolder | undefined;
  #leading = false;
  #stopped = false;
  #observedRecord = '';
  #observedAt = 0;
  #lastRenew = 0;
  #heldByOther = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.#o = options;
  }

  static overApi(api: KubeRest, options: Omit<LeaderElectorOptions, 'api'>): LeaderElector {
    return new LeaderElector({ ...options, api: kubeLeaseApi(api) });
  }

  /**
   * True while this replica holds the Lease and renewed it within the renew deadline. The deadline is checked here,
   * not only when an attempt returns: a renewal stuck on an API server that does not answer (restarting, a dropped
   * connection) would otherwise leave this replica acting as leader long after another took the expired Lease.
   */
  isLeader(): boolean {
    return this.#leading && this.#o.clock.now() - this.#lastRenew < this.#renewDeadlineMs();
  }

  /**
   * The other replica that leads, as the last read of the Lease found it (every retry period), while its hold has
   * not expired by this process's clock; undefined when this replica leads or nobody does.
   */
  leader(): LeaseHolder | undefined {
    return this.#heldByOther && !this.isLeader() ? this.#other : undefined;
  }

  /** Starts the acquire/renew loop in the background. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops the loop and, when leading, releases the Lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    if (!this.#leading) return;
    await this.#release().catch((e: unknown) => {
      this.#log().warn({ component, err: e }, 'releasing lease failed');
    });
    this.#setLeading(false);
  }

  /** One acquire-or-renew attempt; exposed so tests and startup can step it. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.#o.clock.now();
    let ok: boolean;
    try {
      ok = await this.#attempt(now);
    } catch (e: unknown) {
      this.#log().warn({ component, err: e }, 'lease update failed');
      ok = false;
    }
    if (ok) this.#lastRenew = now;
    // The deadline is judged at the answer, not at the call: the call may have hung for longer than the deadline.
    const keep = ok || (this.#leading && this.#o.clock.now() - this.#lastRenew < this.#renewDeadlineMs() && !this.#heldByOther);
    this.#setLeading(keep);
    return keep;
  }

  async #run(): Promise<void> {
    while (!this.#isStopped()) {
      await this.tryAcquireOrRenew();
      if (this.#isStopped()) break;
      await Promise.race([
        this.#o.clock.sleep(this.#o.retryPeriodMs ?? leaseRetryPeriodMs),
        new Promise<void>((resolve) => {
          this.#wake = resolve;
        }),
      ]);
    }
  }

  async #attempt(now: number): Promise<boolean> {
    const { api, namespace, name } = this.#o;
    let lease: Lease;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
      return this.#create(now);
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    this.#observe(`${holder}|${String(spec.renewTime)}`, now);
    const durationMs = (spec.leaseDurationSeconds ?? 15) * 1000;
    this.#heldByOther = holder !== '' && holder !== this.#o.identity && this.#observedAt + durationMs > now;
    this.#other = this.#heldByOther ? { identity: holder, annotations: lease.metadata?.annotations ?? {} } : undefined;
    if (this.#heldByOther) return false;
    return this.#update(lease, now);
  }

  /** A method, not the field, so the compiler does not assume stop() cannot run during an await. */
  #isStopped(): boolean {
    return this.#stopped;
  }

  #observe(record: string, now: number): void {
    if (record === this.#observedRecord) return;
    this.#observedRecord = record;
    this.#observedAt = now;
  }

  async #create(now: number): Promise<boolean> {
    const { api, namespace, name, identity } = this.#o;
    try {
      await api.createNamespacedLease({
        namespace,
        body: { metadata: this.#metadata({ name, namespace }, true), spec: { ...this.#spec(now), acquireTime: microTime(now), leaseTransitions: 0 } },
      });
      return true;
    } catch (e: unknown) {
      if (statusCode(e) === 409) return false; // another replica created it first
      throw new Error(`creating lease ${namespace}/${name} for ${identity}`, { cause: e });
    }
  }

  async #update(lease: Lease, now: number): Promise<boolean> {
    const { api, namespace, name } = this.#o;
    const spec = lease.spec ?? {};
    const changed = spec.holderIdentity !== this.#o.identity;
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: this.#metadata(lease.metadata ?? { name, namespace }, true),
      spec: {
        ...this.#spec(now),
        acquireTime: changed ? microTime(now) : (spec.acquireTime ?? microTime(now)),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (changed ? 1 : 0),
      },
    };
    try {
      await api.replaceNamespacedLease({ name, namespace, body });
      return true;
    } catch (e: unknown) {
      if (statusCode(e) === 409) return false; // lost the race: the resourceVersion moved on
      throw e;
    }
  }

  /**
   * The Lease's metadata with this replica's annotations on it while it holds the Lease, else without them. An
   * annotation given as '' is one this replica has no value for: the previous holder's is taken off all the same,
   * so the Lease never names another replica's address under this one's hold.
   */
  #metadata(metadata: NonNullable<Lease['metadata']>, holding: boolean): NonNullable<Lease['metadata']> {
    const own = this.#o.annotations ?? {};
    const others = Object.fromEntries(Object.entries(metadata.annotations ?? {}).filter(([key]) => !(key in own)));
    const annotations = holding ? { ...others, ...Object.fromEntries(Object.entries(own).filter(([, value]) => value !== '')) } : others;
    const rest = { ...metadata };
    delete rest.annotations;
    return Object.keys(annotations).length === 0 ? rest : { ...rest, annotations };
  }

  #spec(now: number): { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } {
    return {
      holderIdentity: this.#o.identity,
      leaseDurationSeconds: Math.ceil((this.#o.leaseDurationMs ?? 15_000) / 1000),
      renewTime: microTime(now),
    };
  }

  async #release(): Promise<void> {
    const { api, namespace, name } = this.#o;
    const lease = await api.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== this.#o.identity) return;
    const now = this.#o.clock.now();
    // client-go's release: empty holder and a 1 s duration, so the next candidate needs no expiry wait.
    const spec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: microTime(now),
      leaseTransitions: lease.spec.leaseTransitions ?? 0,
    };
    const body: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: this.#metadata(lease.metadata ?? { name, namespace }, false), spec };
    await api.replaceNamespacedLease({ name, namespace, body });
  }

  #setLeading(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#log().info({ component, identity: this.#o.identity, leading }, leading ? 'started leading' : 'stopped leading');
    if (leading) this.#o.onStartedLeading?.();
    else this.#o.onStoppedLeading?.();
  }

  #renewDeadlineMs(): number {
    return this.#o.renewDeadlineMs ?? 10_000;
  }

  #log(): ControllerLogger {
    return this.#o.log ?? silentLogger;
  }
}
