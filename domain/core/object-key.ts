/**
 * The one key for an object in every map of ours: "namespace/name" for namespaced objects, "name" for
 * cluster-scoped ones. A pod always has a namespace on the API server; one without (a manifest before the API
 * server defaulted it) is in "default", as kubectl would put it.
 */
export function objectKey(meta: { readonly namespace?: string | undefined; readonly name?: string | undefined }): string {
  return meta.namespace === undefined ? (meta.name ?? '') : `${meta.namespace}/${meta.name ?? ''}`;
}

/** "namespace/name" of a pod, the key plans, Events and the cluster model use. */
export function podKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace === undefined || namespace === '' ? 'default' : namespace}/${name ?? ''}`;
}

/** {@link podKey} of a pod object. */
export function podKeyOf(pod: { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } }): string {
  return podKey(pod.metadata.namespace, pod.metadata.name);
}
