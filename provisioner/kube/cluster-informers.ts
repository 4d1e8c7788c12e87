import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodeOverlay } from '../../domain/api/nodeoverlay-schema.js';
import type { CapacityBuffer } from '../../domain/api/capacitybuffer-schema.js';
import type { PodDisruptionBudget } from '../../domain/core/pod-disruption-budget.js';
import type { ProvisioningRequest } from '../../domain/provisioning-requests/provisioning-request.js';
import type { ClusterState, StoredKind, StoredObject } from '../state/cluster-state.js';
import { ApiConnection } from './api-connection.js';
import type { KubeTarget } from './kube-config.js';
import { projectDaemonSet, projectNode, projectPod, projectWhole } from './projection.js';
import { startReflector, type InformerSource, type ReflectorHandlers } from './reflector.js';

export type { InformerSource } from './reflector.js';

/** Which kinds a process watches: the extender alone needs only nodes and pods (plans ride on virtual nodes). */
export type InformerSet = 'all' | 'extender';

type ErrorSink = (resource: string, e: unknown) => void;

/** Told when an optional kind's CRD turns out not to be installed (served=false), and when it is installed later. */
type ServedSink = (resource: string, served: boolean) => void;

function stored(state: ClusterState, kind: StoredKind): ReflectorHandlers<StoredObject> {
  return { upsert: (o) => { state.upsertObject(kind, o); }, remove: (ref) => { state.removeObject(kind, ref); } };
}

function coreSources(api: ApiConnection, state: ClusterState, onError: ErrorSink): InformerSource[] {
  return [
    startReflector(api, { resource: 'pods', path: '/api/v1/pods', project: projectPod, onError: (e) => { onError('pods', e); } },
      { upsert: (o) => { state.upsertPod(o); }, remove: (ref) => { state.removePod(ref); } }),
    startReflector(api, { resource: 'nodes', path: '/api/v1/nodes', project: projectNode, onError: (e) => { onError('nodes', e); } },
      { upsert: (o) => { state.upsertNode(o); }, remove: (ref) => { state.removeNode(ref); } }),
  ];
}

/**
 * Dynamic Resource Allocation's objects (resource.k8s.io/v1, GA in Kubernetes 1.34): the claims and templates pods
 * name, and the DeviceClasses they select devices through. Optional: an older cluster, or one with the API off, has none.
 */
function draSources(api: ApiConnection, state: ClusterState, sinks: { readonly onError: ErrorSink; readonly onServed: ServedSink }): InformerSource[] {
  return [['resourceclaims', 'resourceclaim'], ['resourceclaimtemplates', 'resourceclaimtemplate'], ['deviceclasses', 'deviceclass']].map(([resource = '', kind]) => startReflector(api, {
    resource, path: `/apis/resource.k8s.io/v1/${resource}`, project: projectWhole as (raw: unknown) => StoredObject,
    onError: (e) => { sinks.onError(resource, e); }, optional: { onServed: (served) => { sinks.onServed(resource, served); } },
  }, stored(state, kind as StoredKind)));
}

function provisionerSources(api: ApiConnection, state: ClusterState, sinks: { readonly onError: ErrorSink; readonly onServed: ServedSink; readonly dra?: boolean }): InformerSource[] {
  const { onError, onServed } = sinks;
  // The API promises each resource's type; projectWhole only trims metadata.
  const source = <T>(resource: string, path: string, handlers: ReflectorHandlers<T>, project = projectWhole as (raw: unknown) => T): InformerSource =>
    startReflector(api, { resource, path, project, onError: (e) => { onError(resource, e); } }, handlers);
  // Cluster Autoscaler's API, installed with Kueue or by hand: a cluster without its CRD is a cluster without requests.
  const requests = 'provisioningrequests';
  const provisioningRequests = startReflector(api, {
    resource: requests, path: '/apis/autoscaling.x-k8s.io/v1/provisioningrequests', project: projectWhole as (raw: unknown) => ProvisioningRequest,
    onError: (e) => { onError(requests, e); }, optional: { onServed: (served) => { onServed(requests, served); } },
  }, stored(state, 'provisioningrequest'));
  return [
    ...(sinks.dra === false ? [] : draSources(api, state, sinks)),
    source<StoredObject>('daemonsets', '/apis/apps/v1/daemonsets', stored(state, 'daemonset'), projectDaemonSet),
    source<StoredObject>('nodepools', '/apis/karpenter.sh/v1/nodepools', stored(state, 'nodepool')),
    source<StoredObject>('ec2nodeclasses', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses', stored(state, 'ec2nodeclass')),
    source<NodeClaim>('nodeclaims', '/apis/karpenter.sh/v1/nodeclaims', { upsert: (o) => { state.upsertNodeClaim(o); }, remove: (ref) => { state.removeNodeClaim(ref); } }),
    source<PodDisruptionBudget>('poddisruptionbudgets', '/apis/policy/v1/poddisruptionbudgets', { upsert: (o) => { state.upsertPdb(o); }, remove: (ref) => { state.removePdb(ref); } }),
    // Where a pending pod's volumes let it run.
    source<StoredObject>('persistentvolumeclaims', '/api/v1/persistentvolumeclaims', stored(state, 'pvc')),
    source<StoredObject>('persistentvolumes', '/api/v1/persistentvolumes', stored(state, 'pv')),
    source<StoredObject>('storageclasses', '/apis/storage.k8s.io/v1/storageclasses', stored(state, 'storageclass')),
    provisioningRequests,
  ];
}

export interface ClusterInformers {
  readonly sources: readonly InformerSource[];
  /** Resolves once every initial list is in the model (and the model says it is synced). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts one reflector per kind the process reads. `synced` resolves once every initial list has been
 * delivered: nothing plans or launches before the state is complete (a half-listed cluster would look like it
 * needs nodes it already has). After that, nothing here LISTs again unless a watch falls too far behind (410).
 */
export function startClusterInformers(target: KubeTarget, state: ClusterState, options: { readonly onError: ErrorSink; readonly onServed?: ServedSink; readonly kinds?: InformerSet; readonly overlays?: ReflectorHandlers<NodeOverlay>; readonly buffers?: ReflectorHandlers<CapacityBuffer>; readonly dra?: boolean }): ClusterInformers {
  // `dra`: gate DynamicResourceAllocation, on unless false.
  // Watches hold their connections open, so they get a pool of their own, apart from binds and writes.
  const api = new ApiConnection(target, { timeoutMs: 60_000 });
  state.dra.enabled = options.dra !== false;
  const sources = [...coreSources(api, state, options.onError), ...(options.kinds === 'extender' ? [] : provisionerSources(api, state, { onError: options.onError, onServed: options.onServed ?? ((): void => undefined), ...(options.dra === undefined ? {} : { dra: options.dra }) }))];
  // NodeOverlays only with the NodeOverlay gate on (the caller passes their handlers then), as Karpenter watches them.
  if (options.overlays !== undefined) {
    const onError = options.onError;
    sources.push(startReflector(api, { resource: 'nodeoverlays', path: '/apis/karpenter.sh/v1alpha1/nodeoverlays', project: projectWhole as (raw: unknown) => NodeOverlay, onError: (e) => { onError('nodeoverlays', e); } }, options.overlays));
  }
  // CapacityBuffers likewise only with their gate on.
  if (options.buffers !== undefined) {
    const onError = options.onError;
    sources.push(startReflector(api, { resource: 'capacitybuffers', path: '/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers', project: projectWhole as (raw: unknown) => CapacityBuffer, onError: (e) => { onError('capacitybuffers', e); } }, options.buffers));
  }
  const stop = async (): Promise<void> => {
    await Promise.all(sources.map((s) => s.stop()));
    await api.close();
  };
  const synced = Promise.all(sources.map((s) => s.synced)).then(() => { state.markSynced(); });
  return { sources, synced, stop };
}
