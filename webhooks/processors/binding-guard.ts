import { isVirtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { AdmissionResponse } from '../admission-review.js';
import { allow, deny, forbiddenCode } from '../admission-response.js';
import type { AdmissionProcessor } from '../processor.js';

interface BindingLike { metadata?: { name?: string; namespace?: string }; target?: { kind?: string; name?: string } }

function podName(namespace: string | undefined, name: string | undefined, binding: BindingLike | null | undefined): string {
  const ns = namespace ?? binding?.metadata?.namespace ?? '';
  return `${ns}/${binding?.metadata?.name ?? name ?? ''}`;
}

/**
 * The extender must never be the only guard: if it is skipped (ignorable) or bypassed, the
 * default binder would bind a pod to a virtual node's name, where nothing would ever run it.
 * Only the provisioner, which materialises the node first, may bind to a virtual node.
 */
export const guardBinding: AdmissionProcessor = {
  id: 'webhooks.validate.binding',
  path: '/validate/pods-binding',
  kinds: ['v1/Binding'],
  process(request, config): AdmissionResponse {
    const binding = request.object as BindingLike | null | undefined;
    const node = binding?.target?.name;
    if (request.operation !== 'CREATE' || node === undefined || !isVirtualNodeName(node)) return allow(request.uid);
    const user = request.userInfo.username ?? '';
    if (user === config.productServiceAccount) return allow(request.uid);
    const pod = podName(request.namespace, request.name, binding);
    return deny(
      request.uid,
      `target.name: binding pod ${pod} to virtual node "${node}" is refused for user "${user}" (rule virtual-node-binding): only ${config.productServiceAccount} may bind to a node that has not been launched yet`,
      forbiddenCode,
    );
  },
};
