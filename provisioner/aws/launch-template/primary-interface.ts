import type {
  ConnectionTrackingSpecificationRequest,
  LaunchTemplateInstanceNetworkInterfaceSpecificationRequest,
} from '@aws-sdk/client-ec2';
import type { ConnectionTracking, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';

type InterfaceRequest = LaunchTemplateInstanceNetworkInterfaceSpecificationRequest;

/**
 * The launch template's primary network interface, spelled out as Karpenter spells it (launchtemplate.go
 * `generateNetworkInterfaces`) so that it can carry what the EC2NodeClass sets on it: associatePublicIPAddress,
 * ipPrefixCount's prefixes and connectionTracking's timeouts. EC2 then takes the security groups from it, not from
 * SecurityGroupIds.
 */
export function primaryInterface(nodeClass: ResolvedNodeClass, ipv6Cluster: boolean): InterfaceRequest {
  return {
    DeviceIndex: 0,
    ...addressedInterface(nodeClass, ipv6Cluster),
  };
}

/**
 * What every interface that carries IP addresses gets, as Karpenter sets it on the primary interface, on each EFA
 * interface it adds for a pod that asks for EFA, and on each listed interface but the EFA-only ones: the class's
 * security groups, public IP choice, prefixes, timeouts and, in an IPv6 cluster, one primary IPv6 address.
 */
export function addressedInterface(nodeClass: ResolvedNodeClass, ipv6Cluster: boolean): InterfaceRequest {
  const tracking = connectionTrackingSpecification(nodeClass.connectionTracking);
  return {
    Groups: securityGroupIds(nodeClass),
    ...(nodeClass.associatePublicIPAddress === undefined ? {} : { AssociatePublicIpAddress: nodeClass.associatePublicIPAddress }),
    ...prefixCount(nodeClass.ipPrefixCount, ipv6Cluster),
    ...(ipv6Cluster ? { PrimaryIpv6: true, Ipv6AddressCount: 1 } : {}),
    ...(tracking === undefined ? {} : { ConnectionTrackingSpecification: tracking }),
  };
}

export function securityGroupIds(nodeClass: ResolvedNodeClass): string[] {
  return nodeClass.securityGroups.map((g) => g.id);
}

/**
 * Prefix delegation: Karpenter asks for ipPrefixCount prefixes of the cluster's IP family, IPv6 prefixes when the
 * cluster DNS address is IPv6 and IPv4 prefixes otherwise. A count of 0 is sent as 0, as Karpenter sends it.
 */
function prefixCount(count: number | undefined, ipv6Cluster: boolean): Pick<InterfaceRequest, 'Ipv4PrefixCount' | 'Ipv6PrefixCount'> {
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
