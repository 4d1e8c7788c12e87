import type { V1Container, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { Node } from '../../domain/core/node.js';
import type { Container, Pod } from '../../domain/core/pod.js';
import type { Taint } from '../../domain/core/taint.js';

type Compact<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** Drops undefined fields, so the result fits types declared with exactOptionalPropertyTypes. */
function compact<T extends object>(fields: T): Compact<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Compact<T>;
}

/**
 * client-node objects → domain shapes, copying only what the extender reads. client-node turns timestamps into
 * Date objects; the domain keeps the API's strings.
 */
export function toDomainNode(node: V1Node): Node {
  const { metadata, spec, status } = node;
  const deletion = metadata?.deletionTimestamp;
  return {
    metadata: compact({
      name: metadata?.name,
      labels: metadata?.labels,
      deletionTimestamp: deletion === undefined ? undefined : new Date(deletion).toISOString(),
    }),
    spec: compact({
      unschedulable: spec?.unschedulable,
      taints: spec?.taints?.map(toDomainTaint),
    }),
    status: compact({ allocatable: status?.allocatable, capacity: status?.capacity }),
  };
}

function toDomainTaint(taint: V1Taint): Taint {
  return { key: taint.key, effect: taint.effect, ...compact({ value: taint.value }) };
}

function toDomainContainer(container: V1Container): Container {
  const resources = container.resources;
  return {
    name: container.name,
    ...compact({
      restartPolicy: container.restartPolicy,
      resources: resources === undefined ? undefined : compact({ requests: resources.requests, limits: resources.limits }),
    }),
  };
}

export function toDomainPod(pod: V1Pod): Pod {
  const { metadata, spec, status } = pod;
  return {
    metadata: compact({ name: metadata?.name, namespace: metadata?.namespace, uid: metadata?.uid }),
    spec: {
      containers: (spec?.containers ?? []).map(toDomainContainer),
      ...compact({ initContainers: spec?.initContainers?.map(toDomainContainer), overhead: spec?.overhead, nodeName: spec?.nodeName }),
    },
    ...compact({ status: status?.phase === undefined ? undefined : { phase: status.phase } }),
  };
}
