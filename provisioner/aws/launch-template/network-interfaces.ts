import type { LaunchTemplateInstanceNetworkInterfaceSpecificationRequest } from '@aws-sdk/client-ec2';
import type { NetworkInterfaceSpec, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import { addressedInterface, primaryInterface, securityGroupIds } from './primary-interface.js';

type InterfaceRequest = LaunchTemplateInstanceNetworkInterfaceSpecificationRequest;

/**
 * The launch template's network interfaces, in Karpenter's three cases (launchtemplate.go `generateNetworkInterfaces`):
 * - the class lists interfaces: exactly those, in its order;
 * - otherwise, the NodeClaim asks for `vpc.amazonaws.com/efa`: one `efa` interface on each of the type's EFA-capable
 *   cards (`efaCount`, the type's EFA capacity), the first at device 0 and the others at device 1;
 * - otherwise the primary interface alone.
 * An empty list counts as none listed, as Karpenter tests its length.
 */
export function templateInterfaces(nodeClass: ResolvedNodeClass, efaCount: number, ipv6Cluster: boolean): InterfaceRequest[] {
  const listed = nodeClass.networkInterfaces ?? [];
  if (listed.length > 0) return listed.map((n) => listedInterface(nodeClass, n, ipv6Cluster));
  if (efaCount > 0) {
    return Array.from({ length: efaCount }, (_, card) => ({
      NetworkCardIndex: card,
      // One card's interface at device 0 gets the instance's primary address (and any public IP); the rest at 1.
      DeviceIndex: card === 0 ? 0 : 1,
      InterfaceType: 'efa',
      ...addressedInterface(nodeClass, ipv6Cluster),
    }));
  }
  return [primaryInterface(nodeClass, ipv6Cluster)];
}

/**
 * A listed interface. An EFA-only one takes no IP address, so it gets only the security groups: EC2 refuses prefixes
 * or a public IP on it (RunInstances InvalidParameterValue), and Karpenter leaves timeouts and IPv6 off it too.
 */
function listedInterface(nodeClass: ResolvedNodeClass, n: NetworkInterfaceSpec, ipv6Cluster: boolean): InterfaceRequest {
  const position = { NetworkCardIndex: n.networkCardIndex, DeviceIndex: n.deviceIndex, InterfaceType: n.interfaceType };
  if (n.interfaceType === 'efa-only') return { ...position, Groups: securityGroupIds(nodeClass) };
  return { ...position, ...addressedInterface(nodeClass, ipv6Cluster) };
}
