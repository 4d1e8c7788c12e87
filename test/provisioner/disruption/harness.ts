// A disruption controller over the real cluster model with in-memory API fakes: writes land in the fakes and come
// back into the model as the watches would deliver them (`sync`).
import { Registry } from 'prom-client';
import type { NodeClaim } from '../../../domain/api/nodeclaim-schema.js';
import { FakeClock } from '../../../domain/clock.js';
import { formatProviderId } from '../../../domain/cloud/provider-id.js';
import type { Node } from '../../../domain/core/node.js';
import type { Pod } from '../../../domain/core/pod.js';
import type { Taint } from '../../../domain/core/taint.js';
import type { PlannedNodeClaim } from '../../../domain/simulation/simulation-input.js';
import { terminationFinalizer } from '../../../domain/karpenter-keys.js';
import { DisruptionController } from '../../../provisioner/disruption/controller.js';
import { DriftMethod } from '../../../provisioner/disruption/drift-method.js';
import { EmptinessMethod } from '../../../provisioner/disruption/emptiness.js';
import type { DisruptionMethod } from '../../../provisioner/disruption/method.js';
import { DisruptionMetrics } from '../../../provisioner/disruption/metrics.js';
import type { LaunchedReplacement, ReplacementLauncher } from '../../../provisioner/ports/replacement-launcher.js';
import type { NodeWriter } from '../../../provisioner/ports/node-writer.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import type { Condition } from '../../../domain/api/status-conditions.js';
import { condition } from '../../fakes/builders.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes, nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

export const t0 = 1_700_000_000_000;

/** Taints land on the model's Node at once, as the watch would bring them back. */
export class FakeNodeWrites implements Pick<NodeWriter, 'addTaint' | 'removeTaint'> {
  readonly state: ClusterState;
  readonly calls: string[] = [];
  failNext: Error | undefined;
  constructor(state: ClusterState) {
    this.state = state;
  }

  addTaint(name: string, taint: Taint): Promise<void> {
    this.calls.push(`taint ${name}`);
    if (this.failNext !== undefined) return Promise.reject(this.failNext);
    this.#edit(name, (taints) => (taints.some((x) => x.key === taint.key) ? taints : [...taints, taint]));
    return Promise.resolve();
  }

  removeTaint(name: string, key: string): Promise<void> {
    this.calls.push(`untaint ${name}`);
    this.#edit(name, (taints) => taints.filter((x) => x.key !== key));
    return Promise.resolve();
  }

  #edit(name: string, edit: (taints: readonly Taint[]) => readonly Taint[]): void {
    const node = this.state.nodes.get(name);
    if (node !== undefined) this.state.upsertNode({ ...node, spec: { ...node.spec, taints: [...edit(node.spec?.taints ?? [])] } });
  }
}

/** Launches by creating a launched NodeClaim and its Node; `initialize` makes it Initialized as registration would. */
export class FakeLauncher implements ReplacementLauncher {
  readonly harness: { readonly store: InMemoryNodeClaimStore; readonly state: ClusterState; sync(): Promise<void> };
  readonly launched: PlannedNodeClaim[] = [];
  failWith: Error | undefined;
  #count = 0;
  constructor(harness: { readonly store: InMemoryNodeClaimStore; readonly state: ClusterState; sync(): Promise<void> }) {
    this.harness = harness;
  }

  nameFor(): string {
    this.#count += 1;
    return `replacement-${String(this.#count)}`;
  }

  async launch(planned: PlannedNodeClaim, name: string): Promise<LaunchedReplacement> {
    if (this.failWith !== undefined) throw this.failWith;
    this.launched.push(planned);
    const nodeName = `i-repl${name.slice('replacement-'.length)}`;
    await this.harness.store.create(claimFor(name, nodeName, []));
    this.harness.state.upsertNode(managedNode(nodeName, { initialized: false }));
    await this.harness.sync();
    return { nodeClaimName: name, nodeName };
  }
}

export function managedNode(name: string, options: { initialized?: boolean; pool?: string; annotations?: Record<string, string> } = {}): Node {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: {
        'karpenter.sh/nodepool': options.pool ?? 'default',
        'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name,
        'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-east-1a', 'karpenter.sh/capacity-type': 'on-demand',
        ...(options.initialized === false ? {} : { 'karpenter.sh/initialized': 'true' }),
      },
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    },
    spec: { providerID: formatProviderId('us-east-1a', name) },
    status: { allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' }, capacity: { cpu: '2', memory: '8Gi', pods: '29' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export function claimFor(name: string, nodeName: string, extra: readonly Condition[], pool = 'default'): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name, creationTimestamp: new Date(t0 - 3_600_000).toISOString(), labels: { 'karpenter.sh/nodepool': pool }, finalizers: [terminationFinalizer] },
    spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, expireAfter: '720h' },
    status: { nodeName, providerID: formatProviderId('us-east-1a', nodeName), conditions: [condition('Launched', 'True', t0 - 3_600_000), ...extra] },
  };
}

export function initializedClaim(name: string, nodeName: string, conditionTypes: readonly string[] = [], pool = 'default'): NodeClaim {
  return claimFor(name, nodeName, [condition('Initialized', 'True', t0 - 3_600_000), ...conditionTypes.map((type) => condition(type, 'True', t0 - 600_000))], pool);
}

export function appPod(name: string, nodeName: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, labels: { app: 'shop' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop-1', controller: true }], ...extra },
    spec: { nodeName, containers: [{ name: 'app', resources: { requests: { cpu: '500m', memory: '512Mi' } } }] },
    status: { phase: 'Running', startTime: new Date(t0 - 3_600_000).toISOString() },
  };
}

export interface HarnessOptions {
  readonly pools?: readonly Record<string, unknown>[];
  readonly methods?: (h: Harness) => readonly DisruptionMethod[];
}

export class Harness {
  readonly clock = new FakeClock(t0);
  readonly state: ClusterState;
  readonly store: InMemoryNodeClaimStore;
  readonly nodes: FakeNodeWrites;
  readonly launcher: FakeLauncher;
  readonly recorder = new FakeEventRecorder();
  readonly registry = new Registry();
  readonly disrupted: string[] = [];
  readonly controller: DisruptionController;

  constructor(options: HarnessOptions = {}) {
    this.state = stateWith({ nodePools: (options.pools ?? [{}]).map((spec) => nodePool('default', spec)), nodeClasses: [nodeClass()] });
    this.store = new InMemoryNodeClaimStore(this.clock);
    this.nodes = new FakeNodeWrites(this.state);
    this.launcher = new FakeLauncher(this);
    const self = { store: this.store, sync: () => this.sync() };
    this.controller = new DisruptionController({
      state: this.state, clock: this.clock, nodes: this.nodes, launcher: this.launcher, recorder: this.recorder,
      store: { get: (n) => self.store.get(n), patchStatus: async (n, s, o) => { const r = await self.store.patchStatus(n, s, o); await self.sync(); return r; }, delete: async (n) => { await self.store.delete(n); await self.sync(); }, addAnnotations: async (n, a) => { await self.store.addAnnotations(n, a); await self.sync(); } },
      methods: options.methods?.(this) ?? [new EmptinessMethod(), new DriftMethod()],
      instanceTypes: () => fewInstanceTypes, unavailableOfferings: () => new Set(), priceOf: () => 0.1,
      metrics: new DisruptionMetrics(this.registry), countDisrupted: (claim, reason) => { this.disrupted.push(`${claim.metadata.name ?? ''}:${reason}`); },
      pause: () => Promise.resolve(),
    });
  }

  /** The store's NodeClaims into the model, as the NodeClaim watch would deliver them. */
  async sync(): Promise<void> {
    const stored = await this.store.list();
    const names = new Set(stored.map((c) => c.metadata.name ?? ''));
    for (const claim of [...this.state.nodeClaims.values()]) if (!names.has(claim.metadata.name ?? '')) this.state.removeNodeClaim(claim);
    for (const claim of stored) this.state.upsertNodeClaim(claim);
  }

  async addNode(name: string, claim: NodeClaim, pods: readonly Pod[] = [], node: Node = managedNode(name)): Promise<void> {
    this.state.upsertNode(node);
    await this.store.create(claim);
    for (const pod of pods) this.state.upsertPod(pod);
    await this.sync();
  }

  async initialize(claimName: string, nodeName: string): Promise<void> {
    const claim = await this.store.get(claimName);
    await this.store.patchStatus(claimName, { conditions: [...(claim?.status?.conditions ?? []), condition('Initialized', 'True', this.clock.now())] });
    const node = this.state.nodes.get(nodeName);
    if (node !== undefined) this.state.upsertNode({ ...node, metadata: { ...node.metadata, labels: { ...node.metadata.labels, 'karpenter.sh/initialized': 'true' } } });
    await this.sync();
  }

  isTainted(nodeName: string): boolean {
    return (this.state.nodes.get(nodeName)?.spec?.taints ?? []).some((x) => x.key === 'karpenter.sh/disrupted');
  }

  async isDeleting(claimName: string): Promise<boolean> {
    return (await this.store.get(claimName))?.metadata.deletionTimestamp !== undefined;
  }

  events(reason: string): string[] {
    return this.recorder.events.filter((e) => e.reason === reason).map((e) => `${e.object.kind}/${e.object.name}: ${e.message}`);
  }

  async metric(name: string): Promise<string> {
    return this.registry.getSingleMetricAsString(name);
  }

  /** Passes the controller would run over `ms`, at its own requeue times. */
  async run(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    while (this.clock.now() < end) {
      const { requeueAfterMs } = await this.controller.reconcile();
      this.clock.step(Math.max(1, Math.min(requeueAfterMs, end - this.clock.now())));
    }
  }
}
