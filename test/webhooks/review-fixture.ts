/** Builds AdmissionReview bodies the way the API server sends them (see test/stack fixtures). */
export interface ReviewOptions {
  readonly operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly oldObject?: unknown;
  readonly namespace?: string;
  readonly username?: string;
  readonly uid?: string;
  readonly subResource?: string;
}

const resources: Readonly<Record<string, string>> = {
  NodePool: 'nodepools', NodeClaim: 'nodeclaims', EC2NodeClass: 'ec2nodeclasses', Pod: 'pods', Binding: 'pods',
};

function groupVersion(apiVersion: string): [string, string] {
  const [group = '', version = ''] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return [group, version];
}

export function review(object: { apiVersion: string; kind: string; metadata?: { name?: string; [key: string]: unknown }; [key: string]: unknown }, options: ReviewOptions = {}): Record<string, unknown> {
  const [group, version] = groupVersion(object.apiVersion);
  const resource = resources[object.kind] ?? `${object.kind.toLowerCase()}s`;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group, version, kind: object.kind },
      resource: { group, version, resource },
      ...(options.subResource ? { subResource: options.subResource } : {}),
      ...(object.metadata?.name ? { name: object.metadata.name } : {}),
      ...(options.namespace ? { namespace: options.namespace } : {}),
      operation: options.operation ?? 'CREATE',
      userInfo: { username: options.username ?? 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object: options.operation === 'DELETE' ? null : object,
      oldObject: options.oldObject ?? null,
      dryRun: false,
    },
  };
}

export function decodePatch(patch: string | undefined): unknown {
  return patch === undefined ? undefined : JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
}

/** Manifests as a user writes them (no defaults); the typed, defaulted forms are in test/fakes. */
export { nodePoolManifest as nodePool, ec2NodeClassManifest as ec2NodeClass } from '../fakes/provisioning-builders.js';
