import type { EC2NodeClass } from '../../domain/api/ec2nodeclass-schema.js';
import type { NodeClassSpec } from '../../domain/cloud/node-class.js';

/**
 * The cloud port's view of an EC2NodeClass. With `role` instead of `instanceProfile`, Karpenter creates an
 * instance profile through IAM; we do not manage IAM yet, so the role name is used as the profile name
 * (the convention of profiles created alongside their role) and the launch fails clearly if it is absent.
 */
export function nodeClassSpecOf(nodeClass: EC2NodeClass): NodeClassSpec {
  const spec = nodeClass.spec as EC2NodeClass['spec'] & { role?: string; instanceProfile?: string };
  return JSON.parse(JSON.stringify({
    name: nodeClass.metadata.name ?? '',
    subnetSelectorTerms: spec.subnetSelectorTerms,
    securityGroupSelectorTerms: spec.securityGroupSelectorTerms,
    amiSelectorTerms: spec.amiSelectorTerms,
    amiFamily: spec.amiFamily,
    instanceProfile: spec.instanceProfile ?? spec.role ?? '',
    blockDeviceMappings: spec.blockDeviceMappings,
    metadataOptions: spec.metadataOptions,
    userData: spec.userData,
    tags: spec.tags,
    associatePublicIPAddress: spec.associatePublicIPAddress,
    detailedMonitoring: spec.detailedMonitoring,
  })) as NodeClassSpec;
}
