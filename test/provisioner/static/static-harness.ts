// The static NodePool controller over the real cluster model, with an in-memory NodeClaim store and a launcher that
// creates launched NodeClaims and their Nodes; `sync` delivers the store into the model as the watch would.
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../../domain/api/nodepool-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { formatProviderId } from '../../../domain/cloud/provider-id.js';
import type { Pod } from '../../../domain/core/pod.js';
import type { PlannedNodeClaim } from '../../../domain/simulation/simulation-input.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import type { LaunchedReplacement, ReplacementLauncher } from '../../../provisioner/ports/replacement-launcher.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { StaticLaunches } from '../../../provisioner/static/static-launches.js';
import { StaticReplicasController } from '../../../provisioner/static/static-replicas-controller.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

export const t0 = 1_700_000_000_000;

/** A static NodePool as the readiness controller leaves it (Ready), with these spec fields. */
export function staticPool(replicas: number, spec: Record<string, unknown> = {}, name = 'fixed'): NodePool {
  const pool = nodePool(name, { replicas, ...spec });
  return { ...pool, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date(t0).toISOString() }] } };
}

/**
 * Creates the NodeClaim (launched, with its Node) in the store. With `hold`, each launch waits until `release()`,
 * so a test can look at the controller while launches are in flight and the watch has not delivered them.
 */
export class FakeStaticLauncher implements ReplacementLauncher {
  private readonly h: StaticHarness;
  readonly launched: PlannedNodeClaim[] = [];
  failWith: Error | undefined;
  hold = false;
  #count = 0;
  #held: (() => void)[] = [];

  constructor(h: StaticHarness) {
    this.h = h;
  }

  nameFor(planned: PlannedNodeClaim): string {
    this.#count += 1;
    return `${planned.nodePool}-${String(this.#count)}`;
  }

  async launch(planned: PlannedNodeClaim, name: string): Promise<LaunchedReplacement> {
    if (this.hold) await new Promise<void>((resolve) => this.#held.push(resolve));
    if (this.failWith !== undefined) throw this.failWith;
    this.launched.push(planned);
    const nodeName = `i-${name}`;
    const existing = await this.h.store.get(name);
    const claim = launchedClaim(name, nodeName, planned.nodePool, this.h.clock.now());
    if (existing === undefined) await this.h.store.create(claim);
    else await this.h.store.patchStatus(name, claim.status ?? {});
    return { nodeClaimName: name, nodeName };
  }

  release(): void {
    for (const resolve of this.#held.splice(0)) resolve();
  }
}

/** A static NodeClaim; without `nodeName` it never launched. */
export function launchedClaim(name: string, nodeName: string, pool: string, createdMs: number): NodeClaim {
  const launched = nodeName !== '';
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name, creationTimestamp: new Date(createdMs).toISOString(), labels: { 'karpenter.sh/nodepool': pool }, finalizers: [terminationFinalizer] },
    spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    ...(launched ? { status: { nodeName, providerID: formatProviderId('us-east-1a', nodeName) } } : {}),
  };
}

export function appPod(name: string, nodeName: string, annotations: Record<string, string> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', controller: true }] },
    spec: { nodeName, containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }] },
    status: { phase: 'Running', startTime: new Date(t0 - 3_600_000).toISOString() },
  };
}

export class StaticHarness {
  readonly clock = new FakeClock(t0);
  readonly state: ClusterState;
  readonly store: InMemoryNodeClaimStore;
  readonly launcher: FakeStaticLauncher;
  readonly launches = new StaticLaunches();
  readonly controller: StaticReplicasController;

  constructor(pools: readonly NodePool[], options: { synced?: boolean } = {}) {
    this.state = stateWith({ nodePools: pools, nodeClasses: [nodeClass()], ...(options.synced === false ? { synced: false } : {}) });
    this.store = new InMemoryNodeClaimStore(this.clock);
    this.launcher = new FakeStaticLauncher(this);
    this.controller = new StaticReplicasController({
      state: this.state, store: { delete: (name) => this.store.delete(name) }, launcher: this.launcher, launches: this.launches,
      instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(), clock: this.clock,
    });
  }

  /** One pass, its launches settled, and the writes delivered back into the model. */
  async pass(): Promise<void> {
    await this.controller.reconcile();
    await this.controller.settled();
    await this.sync();
  }

  /** The store's NodeClaims into the model (and a Node for each launched one), as the watches would deliver them. */
  async sync(): Promise<void> {
    const stored = await this.store.list();
    const names = new Set(stored.map((c) => c.metadata.name ?? ''));
    for (const claim of [...this.state.nodeClaims.values()]) if (!names.has(claim.metadata.name ?? '')) this.state.removeNodeClaim(claim);
    for (const claim of stored) {
      this.state.upsertNodeClaim(claim);
      const nodeName = claim.status?.nodeName;
      if (nodeName !== undefined && !this.state.nodes.has(nodeName)) {
        this.state.upsertNode({ metadata: { name: nodeName, labels: { 'karpenter.sh/nodepool': claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '' } }, spec: { providerID: claim.status?.providerID ?? '' } });
      }
    }
  }

  /** Termination finishing: the finalizer goes, and the NodeClaim with it. */
  async finishTermination(): Promise<void> {
    for (const claim of await this.store.list()) {
      if (claim.metadata.deletionTimestamp !== undefined) await this.store.removeFinalizer(claim.metadata.name ?? '', terminationFinalizer);
    }
    await this.sync();
  }

  async scale(replicas: number, name = 'fixed'): Promise<void> {
    const pool = this.state.nodePools.get(name);
    if (pool === undefined) throw new Error(`no pool ${name}`);
    this.state.upsertObject('nodepool', { ...pool, spec: { ...pool.spec, replicas } });
    return Promise.resolve();
  }

  async live(pool = 'fixed'): Promise<string[]> {
    return (await this.store.list()).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === pool && c.metadata.deletionTimestamp === undefined).map((c) => c.metadata.name ?? '').sort();
  }
}
