import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { statusCode } from './api-status.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Merge-patches annotations onto a NodeClaim (e.g. Karpenter's termination timestamp); a NodeClaim that is gone is not an error. */
export function nodeClaimAnnotator(kc: KubeConfig): (name: string, annotations: Readonly<Record<string, string>>) => Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  return async (name, annotations) => {
    try {
      await api.patchClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name, body: { metadata: { annotations } }, fieldManager: 'nodesmith' }, mergePatch);
    } catch (e: unknown) {
      if (statusCode(e) === 404) return;
      throw new Error(`annotating nodeclaim ${name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
}
