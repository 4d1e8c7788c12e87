import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClassSpec } from '../../domain/cloud/node-class.js';
import { resolvedAmiFamily } from '../../domain/api/ami-families.js';

/**
 * The cloud port's view of an EC2NodeClass. With `role` instead of `instanceProfile`, the profile is the one
 * the instance-profile controller created and recorded in status.instanceProfile; until it has, the profile
 * is empty and the resolver refuses the launch as not ready.
 */
export function nodeClassSpecOf(nodeClass: EC2NodeClass): NodeClassSpec {
  const spec = nodeClass.spec as EC2NodeClass['spec'] & { role?: string; instanceProfile?: string };
  return JSON.parse(JSON.stringify({
    name: nodeClass.metadata.name ?? '',
    subnetSelectorTerms: spec.subnetSelectorTerms,
    securityGroupSelectorTerms: spec.securityGroupSelectorTerms,
    amiSelectorTerms: spec.amiSelectorTerms,
    amiFamily: resolvedAmiFamily(spec),
    instanceProfile: launchProfileOf(nodeClass),
    blockDeviceMappings: spec.blockDeviceMappings,
    metadataOptions: spec.metadataOptions,
    userData: spec.userData,
    tags: spec.tags,
    associatePublicIPAddress: spec.associatePublicIPAddress,
    detailedMonitoring: spec.detailedMonitoring,
    instanceStorePolicy: spec.instanceStorePolicy,
    ipPrefixCount: spec.ipPrefixCount,
    context: spec.context,
    cpuOptions: spec.cpuOptions,
    connectionTracking: spec.connectionTracking,
    networkInterfaces: spec.networkInterfaces,
    placementGroupSelector: spec.placementGroupSelector,
  })) as NodeClassSpec;
}

/** The instance profile a launch uses: the class's own, or the one created for its role ('' until it exists). */
export function launchProfileOf(nodeClass: EC2NodeClass): string {
  const spec = nodeClass.spec as EC2NodeClass['spec'] & { role?: string; instanceProfile?: string };
  return spec.instanceProfile ?? (spec.role === undefined ? '' : (nodeClass.status?.instanceProfile ?? ''));
}
