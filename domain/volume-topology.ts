import type { Pod } from './core/pod.js';
import type { NodeSelectorRequirement, PersistentVolume, PersistentVolumeClaim, StorageClass } from './core/storage.js';

/** Lookups by name; namespaced claims by "namespace/name". */
export interface VolumeLookup {
  claim(key: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  storageClass(name: string): StorageClass | undefined;
}

/**
 * Where a pod's volumes let it run, as node requirements (Karpenter's volumetopology): a bound claim follows its
 * PersistentVolume's required node affinity (first term: a volume lives in one place); an unbound claim follows
 * its StorageClass's allowedTopologies. A claim that does not exist yet adds nothing: kube-scheduler will not
 * place the pod until it does, and the simulation must not invent a zone for it.
 */
export function volumeRequirements(pod: Pod, lookup: VolumeLookup): NodeSelectorRequirement[] {
  const namespace = pod.metadata.namespace ?? 'default';
  const out: NodeSelectorRequirement[] = [];
  for (const volume of pod.spec.volumes ?? []) {
    const claimName = volume.persistentVolumeClaim?.claimName;
    if (claimName === undefined) continue;
    const claim = lookup.claim(`${namespace}/${claimName}`);
    if (claim === undefined) continue;
    out.push(...claimRequirements(claim, lookup));
  }
  return out;
}

function claimRequirements(claim: PersistentVolumeClaim, lookup: VolumeLookup): NodeSelectorRequirement[] {
  const volumeName = claim.spec?.volumeName ?? '';
  return volumeName === '' ? classRequirements(lookup.storageClass(claim.spec?.storageClassName ?? '')) : volumeAffinity(lookup.volume(volumeName));
}

function volumeAffinity(volume: PersistentVolume | undefined): NodeSelectorRequirement[] {
  const [term] = volume?.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  return [...(term?.matchExpressions ?? [])];
}

function classRequirements(storageClass: StorageClass | undefined): NodeSelectorRequirement[] {
  const [topology] = storageClass?.allowedTopologies ?? [];
  return (topology?.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In' as const, values: [...e.values] }));
}
