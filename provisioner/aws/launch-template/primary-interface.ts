import type {
  ConnectionTrackingSpecificationRequest,
  LaunchTemplateInstanceNetworkInterfaceSpecificationRequest,
} from '@aws-sdk/client-ec2';
import type { ConnectionTracking, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';

/**
 * The launch template's primary network interface, spelled out as Karpenter spells it (launchtemplate.go
 * `generateNetworkInterfaces`) so that it can carry what the EC2NodeClass sets on it: associatePublicIPAddress,
 * ipPrefixCount's prefixes and connectionTracking's timeouts. EC2 then takes the security groups from it, not from
 * SecurityGroupIds.
 */
export function primaryInterface(
  nodeClass: ResolvedNodeClass,
  ipv6Cluster: boolean,
): LaunchTemplateInstanceNetworkInterfaceSpecificationRequest {
  const tracking = connectionTrackingSpecification(nodeClass.connectionTracking);
  return {
    DeviceIndex: 0,
    Groups: nodeClass.securityGroups.map((g) => g.id),
    ...(nodeClass.associatePublicIPAddress === undefined ? {} : { AssociatePublicIpAddress: nodeClass.associatePublicIPAddress }),
    ...prefixCount(nodeClass.ipPrefixCount, ipv6Cluster),
    ...(tracking === undefined ? {} : { ConnectionTrackingSpecification: tracking }),
  };
}

/**
 * Prefix delegation: Karpenter asks for ipPrefixCount prefixes of the cluster's IP family, IPv6 prefixes when the
 * cluster DNS address is IPv6 and IPv4 prefixes otherwise. A count of 0 is sent as 0, as Karpenter sends it.
 */
function prefixCount(count: number | undefined, ipv6Cluster: boolean): Pick<LaunchTemplateInstanceNetworkInterfaceSpecificationRequest, 'Ipv4PrefixCount' | 'Ipv6PrefixCount'> {
  if (count === undefined) return {};
  return ipv6Cluster ? { Ipv6PrefixCount: count } : { Ipv4PrefixCount: count };
}

/** Only the timeouts the class sets: EC2 keeps its own default for the others, as with Karpenter's template. */
function connectionTrackingSpecification(
  tracking: ConnectionTracking | undefined,
): ConnectionTrackingSpecificationRequest | undefined {
  if (tracking === undefined) return undefined;
  const { tcpEstablishedTimeout, udpStreamTimeout, udpTimeout } = tracking;
  if (tcpEstablishedTimeout === undefined && udpStreamTimeout === undefined && udpTimeout === undefined) return undefined;
  return {
    ...(tcpEstablishedTimeout === undefined ? {} : { TcpEstablishedTimeout: tcpEstablishedTimeout }),
    ...(udpStreamTimeout === undefined ? {} : { UdpStreamTimeout: udpStreamTimeout }),
    ...(udpTimeout === undefined ? {} : { UdpTimeout: udpTimeout }),
  };
}
