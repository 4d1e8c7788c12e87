import type { Container, Pod } from './core/pod.js';
import { addResources, maxResources, parseResourceList, resourceNames, type ResourceList } from './resource-list.js';

/**
 * A container's effective requests. The API server copies limits into missing requests when a pod is created;
 * manifests read offline have not been through that defaulting, so it is applied here too.
 */
export function containerRequests(container: Container): ResourceList {
  const limits = parseResourceList(container.resources?.limits);
  const requests = parseResourceList(container.resources?.requests);
  return { ...limits, ...requests };
}

function isSidecar(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

/**
 * What a pod takes from a node, with kube-scheduler's semantics (component-helpers `PodRequests`): the sum of
 * the app containers and of restartable init ("sidecar") containers, or the largest regular init container plus
 * the sidecars started before it, whichever is larger; plus `spec.overhead`; plus 1 `pods` (Karpenter's
 * `RequestsForPods`). Throws QuantityError on an unparseable quantity.
 */
export function podRequests(pod: Pod): ResourceList {
  const known = computed.get(pod);
  if (known !== undefined) return known;
  const requests = Object.freeze(computeRequests(pod));
  computed.set(pod, requests);
  return requests;
}

/**
 * Requests per pod object. Consolidation simulates the same running pods hundreds of times per pass, and pods are
 * snapshots the model replaces rather than edits, so each object's requests are parsed once (frozen, so that a
 * caller that tried to edit the shared result would fail loudly).
 */
const computed = new WeakMap<Pod, ResourceList>();

/**
 * kube-scheduler's aggregation of per-container amounts (requests or limits): the app containers and the
 * restartable init ("sidecar") containers summed, or the largest regular init container plus the sidecars started
 * before it, whichever is larger.
 */
export function aggregateContainers(pod: Pod, amountsOf: (container: Container) => ResourceList): ResourceList {
  let sum: ResourceList = {};
  for (const container of pod.spec.containers) sum = addResources(sum, amountsOf(container));
  let sidecars: ResourceList = {};
  let initPeak: ResourceList = {};
  for (const container of pod.spec.initContainers ?? []) {
    const amounts = amountsOf(container);
    if (isSidecar(container)) {
      sum = addResources(sum, amounts);
      sidecars = addResources(sidecars, amounts);
      initPeak = maxResources(initPeak, sidecars);
    } else {
      initPeak = maxResources(initPeak, addResources(amounts, sidecars));
    }
  }
  return maxResources(sum, initPeak);
}

function computeRequests(pod: Pod): ResourceList {
  const total = addResources(aggregateContainers(pod, containerRequests), parseResourceList(pod.spec.overhead));
  return addResources(total, { [resourceNames.pods]: 1 });
}
