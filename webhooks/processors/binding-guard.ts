import { isVirtualNodeName } from '../../domain/api/virtual-node-name.js';
import type { AdmissionRequest, AdmissionResponse } from '../admission-review.js';
import { allow, deny, forbiddenCode } from '../admission-response.js';
import type { AdmissionConfig, AdmissionProcessor } from '../processor.js';

interface BindingLike { metadata?: { name?: string; namespace?: string }; target?: { kind?: string; name?: string } }

function podName(namespace: string | undefined, name: string | undefined, binding: BindingLike | null | undefined): string {
  const ns = namespace ?? binding?.metadata?.namespace ?? '';
  return `${ns}/${binding?.metadata?.name ?? name ?? ''}`;
}

/** How a pod would reach a node: the field that names it, and the act ("binding pod apps/web to"). */
export interface Placement {
  readonly field: string;
  readonly node: string | undefined;
  readonly act: string;
}

/**
 * The rule virtual-node-binding, for both ways a pod reaches a node (a Binding, and a pod created with spec.nodeName):
 * only the provisioner, which launches the node first, may place a pod on a virtual node. Undefined when allowed.
 */
export function refuseVirtualPlacement(request: AdmissionRequest, config: AdmissionConfig, placement: Placement): AdmissionResponse | undefined {
  const { node } = placement;
  if (request.operation !== 'CREATE' || node === undefined || !isVirtualNodeName(node)) return undefined;
  const user = request.userInfo.username ?? '';
  if (user === config.productServiceAccount) return undefined;
  return deny(
    request.uid,
    `${placement.field}: ${placement.act} virtual node "${node}" is refused for user "${user}" (rule virtual-node-binding): only ${config.productServiceAccount} may place a pod on a node that has not been launched yet`,
    forbiddenCode,
  );
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
    const placement = { field: 'target.name', node: binding?.target?.name, act: `binding pod ${podName(request.namespace, request.name, binding)} to` };
    return refuseVirtualPlacement(request, config, placement) ?? allow(request.uid);
  },
};
