import { statusCode } from './api-status.js';
import type { KubeRest } from './kube-rest.js';

/** Merge-patches annotations onto a NodeClaim (e.g. Karpenter's termination timestamp); a NodeClaim that is gone is not an error. */
export function nodeClaimAnnotator(api: KubeRest): (name: string, annotations: Readonly<Record<string, string>>) => Promise<void> {
  return async (name, annotations) => {
    try {
      await api.mergePatch({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name }, { metadata: { annotations } });
    } catch (e: unknown) {
      if (statusCode(e) === 404) return;
      throw new Error(`annotating nodeclaim ${name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
}
