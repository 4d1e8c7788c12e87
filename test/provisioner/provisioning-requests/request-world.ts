// The ProvisioningRequest controller's world for its tests: a cluster model, PodTemplates by name, an API that records
// status writes and feeds them back into the model as the watch would, and the real launch path (PlanMaterializer
// behind the MaterializingLauncher) over the fake cloud provider and an in-memory NodeClaim store.
import { Registry } from 'prom-client';
import type { Condition } from '../../../domain/api/status-conditions.js';
import { FakeClock } from '../../../domain/clock.js';
import type { NodeClassResolver } from '../../../domain/cloud/cloud-provider.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import type { PodTemplateSpec } from '../../../domain/core/pod.js';
import type { ProvisioningRequest } from '../../../domain/provisioning-requests/provisioning-request.js';
import { MaterializingLauncher } from '../../../provisioner/disruption/replacement-launcher.js';
import { PlanMaterializer } from '../../../provisioner/launch/materializer.js';
import type { PodTemplateReader } from '../../../provisioner/ports/api-reads.js';
import type { ProvisioningRequestStatusWriter } from '../../../provisioner/ports/status-writers.js';
import { ProvisioningRequestMetrics } from '../../../provisioner/provisioning-requests/metrics.js';
import { ProvisioningRequestController } from '../../../provisioner/provisioning-requests/provisioning-request-controller.js';
import type { ClusterState } from '../../../provisioner/state/cluster-state.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { FakeEventRecorder } from '../../fakes/fake-cluster.js';
import { FakeNodeWriter } from '../../fakes/fake-node-writer.js';
import { InMemoryNodeClaimStore } from '../../fakes/in-memory-nodeclaim-store.js';
import { fewInstanceTypes } from '../../fakes/provisioning-builders.js';

export const start = Date.parse('2026-11-28T10:00:00Z');
export const checkCapacity = 'check-capacity.autoscaling.x-k8s.io';
export const atomic = 'best-effort-atomic-scale-up.autoscaling.x-k8s.io';

export const oneCpu: PodTemplateSpec = { metadata: { labels: { job: 'train' } }, spec: { containers: [{ name: 'w', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } };

export function request(name: string, count: number, options: { className?: string; template?: string; createdMs?: number; parameters?: Record<string, string> } = {}): ProvisioningRequest {
  return {
    apiVersion: 'autoscaling.x-k8s.io/v1', kind: 'ProvisioningRequest',
    metadata: { name, namespace: 'batch', uid: `uid-${name}`, generation: 1, creationTimestamp: new Date(options.createdMs ?? start).toISOString() },
    spec: { provisioningClassName: options.className ?? checkCapacity, podSets: [{ podTemplateRef: { name: options.template ?? 'one-cpu' }, count }], ...(options.parameters === undefined ? {} : { parameters: options.parameters }) },
  };
}

/** PodTemplates by name, and the status writes, each fed back into the model as the watch would deliver it. */
export class FakeApi implements PodTemplateReader, ProvisioningRequestStatusWriter {
  readonly state: ClusterState;
  readonly templates = new Map<string, PodTemplateSpec>([['one-cpu', oneCpu]]);
  readonly writes: string[] = [];
  failWritesOf: string | undefined;

  constructor(state: ClusterState) {
    this.state = state;
  }

  podTemplate(_namespace: string, name: string): Promise<PodTemplateSpec | undefined> {
    return Promise.resolve(this.templates.get(name));
  }

  patchConditions(namespace: string, name: string, conditions: readonly Condition[], details?: Readonly<Record<string, string | null>>): Promise<void> {
    if (name === this.failWritesOf) return Promise.reject(new Error('500 etcd timeout'));
    this.writes.push(name);
    const before = this.state.provisioningRequests.get(`${namespace}/${name}`);
    if (before === undefined) return Promise.resolve();
    // The merge patch's semantics: the conditions replaced whole, the details merged key by key, null removing one.
    const merged = new Map(Object.entries(before.status?.provisioningClassDetails ?? {}));
    for (const [key, value] of Object.entries(details ?? {})) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    this.state.upsertObject('provisioningrequest', { ...before, status: { conditions, ...(merged.size === 0 ? {} : { provisioningClassDetails: Object.fromEntries(merged) }) } });
    return Promise.resolve();
  }
}

const resolver: NodeClassResolver = {
  resolve: () => Promise.resolve({
    name: 'default', amiFamily: 'AL2023', subnets: [], securityGroups: [], amis: [{ id: 'ami-123', name: 'al2023', architecture: 'amd64' }],
    instanceProfile: 'node', blockDeviceMappings: [], tags: {},
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
  }),
};

export interface RequestWorld {
  readonly state: ClusterState;
  readonly api: FakeApi;
  readonly events: FakeEventRecorder;
  readonly clock: FakeClock;
  readonly registry: Registry;
  readonly cloud: FakeCloudProvider;
  readonly claims: InMemoryNodeClaimStore;
  readonly nodes: FakeNodeWriter;
  readonly controller: ProvisioningRequestController;
}

export function setup(contents: Parameters<typeof stateWith>[0], ...requests: ProvisioningRequest[]): RequestWorld {
  const state = stateWith(contents);
  for (const r of requests) state.upsertObject('provisioningrequest', r);
  const api = new FakeApi(state);
  const events = new FakeEventRecorder();
  const clock = new FakeClock(start);
  const registry = new Registry();
  const cloud = new FakeCloudProvider(clock);
  const claims = new InMemoryNodeClaimStore(clock);
  const nodes = new FakeNodeWriter(state);
  const catalog = new Map(fewInstanceTypes.map((type) => [type.name, type]));
  const unavailableOfferings = (): ReadonlySet<string> => new Set(cloud.unavailableOfferings.keys());
  const materializer = new PlanMaterializer({ state, nodeClaims: claims, nodes, cloud, resolver, catalog: () => catalog, unavailableOfferings, events, clock });
  let n = 0;
  const launcher = new MaterializingLauncher(materializer, () => String(++n).padStart(5, '0'));
  const controller = new ProvisioningRequestController({
    state, templates: api, writer: api, events, clock, instanceTypes: () => fewInstanceTypes, unavailableOfferings, launcher, nodeClaims: claims,
    metrics: new ProvisioningRequestMetrics(registry),
  });
  return { state, api, events, clock, registry, cloud, claims, nodes, controller };
}

export const conditionsOf = (state: ClusterState, name: string): readonly Condition[] => state.provisioningRequests.get(`batch/${name}`)?.status?.conditions ?? [];
export const statusOf = (state: ClusterState, name: string, type: string): Condition | undefined => conditionsOf(state, name).find((c) => c.type === type);
