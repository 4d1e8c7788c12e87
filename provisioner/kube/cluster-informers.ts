import * as k8s from '@kubernetes/client-node';
import type { NodeClaim } from '../../domain/api/nodeclaim-schema.js';
import type { NodePool } from '../../domain/api/nodepool-schema.js';
import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { Node } from '../../domain/core/node.js';
import type { Pod } from '../../domain/core/pod.js';
import type { DaemonSet } from '../../domain/core/workloads.js';
import type { PersistentVolumeClaim } from '../../domain/core/storage.js';
import type { ClusterState } from '../state/cluster-state.js';
import { startInformer, type InformerSource } from './informer-source.js';

// client-node turns timestamps into Date objects; the domain works on the wire form (what kubectl shows),
// so every object goes back to JSON once, here at the edge. The core models' property names are the JSON
// names, and a Date serialises to its RFC 3339 form.
const wire = (object: unknown): unknown => JSON.parse(JSON.stringify(object)) as unknown;

type Custom = 'nodepool' | 'ec2nodeclass' | 'nodeclaim';
const customResources: Record<Custom, { group: string; plural: string }> = {
  nodepool: { group: 'karpenter.sh', plural: 'nodepools' },
  nodeclaim: { group: 'karpenter.sh', plural: 'nodeclaims' },
  ec2nodeclass: { group: 'karpenter.k8s.aws', plural: 'ec2nodeclasses' },
};

function customInformer(kc: k8s.KubeConfig, state: ClusterState, kind: Custom, onError: (e: unknown) => void): InformerSource {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const { group, plural } = customResources[kind];
  return startInformer<k8s.KubernetesObject>(kc, {
    resource: plural, path: `/apis/${group}/v1/${plural}`, onError,
    list: async () => (await api.listClusterCustomObject({ group, version: 'v1', plural })) as k8s.KubernetesListObject<k8s.KubernetesObject>,
  }, {
    upsert: (o) => { state.upsertObject(kind, o as unknown as NodePool | EC2NodeClass | NodeClaim); },
    remove: (o) => { state.removeObject(kind, o as unknown as NodeClaim); },
  });
}

/** Claims, volumes and storage classes: where a pending pod's volumes let it run. */
function volumeInformers(kc: k8s.KubeConfig, state: ClusterState, onError: (resource: string, e: unknown) => void): InformerSource[] {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const storage = kc.makeApiClient(k8s.StorageV1Api);
  const feed = (kind: 'pvc' | 'pv' | 'storageclass'): { upsert: (o: k8s.KubernetesObject) => void; remove: (o: k8s.KubernetesObject) => void } => ({
    upsert: (o: k8s.KubernetesObject): void => { state.upsertObject(kind, wire(o) as PersistentVolumeClaim); },
    remove: (o: k8s.KubernetesObject): void => { state.removeObject(kind, wire(o) as PersistentVolumeClaim); },
  });
  return [
    startInformer<k8s.V1PersistentVolumeClaim>(kc, { resource: 'persistentvolumeclaims', path: '/api/v1/persistentvolumeclaims', list: () => core.listPersistentVolumeClaimForAllNamespaces(), onError: (e) => { onError('persistentvolumeclaims', e); } }, feed('pvc')),
    startInformer<k8s.V1PersistentVolume>(kc, { resource: 'persistentvolumes', path: '/api/v1/persistentvolumes', list: () => core.listPersistentVolume(), onError: (e) => { onError('persistentvolumes', e); } }, feed('pv')),
    startInformer<k8s.V1StorageClass>(kc, { resource: 'storageclasses', path: '/apis/storage.k8s.io/v1/storageclasses', list: () => storage.listStorageClass(), onError: (e) => { onError('storageclasses', e); } }, feed('storageclass')),
  ];
}

/**
 * Starts one informer per kind the provisioner reads and resolves once every initial list has been
 * delivered: nothing plans or launches before the state is complete (a half-listed cluster would look
 * like it needs nodes it already has).
 */
export async function startClusterInformers(kc: k8s.KubeConfig, state: ClusterState, onError: (resource: string, e: unknown) => void): Promise<InformerSource[]> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const sources: InformerSource[] = [
    startInformer<k8s.V1Pod>(kc, { resource: 'pods', path: '/api/v1/pods', list: () => core.listPodForAllNamespaces(), onError: (e) => { onError('pods', e); } }, {
      upsert: (o) => { state.upsertPod(wire(o) as Pod); },
      remove: (o) => { state.removePod(wire(o) as Pod); },
    }),
    startInformer<k8s.V1Node>(kc, { resource: 'nodes', path: '/api/v1/nodes', list: () => core.listNode(), onError: (e) => { onError('nodes', e); } }, {
      upsert: (o) => { state.upsertNode(wire(o) as Node); },
      remove: (o) => { state.removeNode(wire(o) as Node); },
    }),
    startInformer<k8s.V1DaemonSet>(kc, { resource: 'daemonsets', path: '/apis/apps/v1/daemonsets', list: () => apps.listDaemonSetForAllNamespaces(), onError: (e) => { onError('daemonsets', e); } }, {
      upsert: (o) => { state.upsertObject('daemonset', wire(o) as DaemonSet); },
      remove: (o) => { state.removeObject('daemonset', wire(o) as DaemonSet); },
    }),
    ...(['nodepool', 'ec2nodeclass', 'nodeclaim'] as const).map((kind) => customInformer(kc, state, kind, (e) => { onError(kind, e); })),
    ...volumeInformers(kc, state, onError),
  ];
  await Promise.all(sources.map((s) => s.synced));
  state.markSynced();
  return sources;
}
