import type { SeededVpc } from '../stack/moto.js';

/** A NodePool + EC2NodeClass pair that selects the seeded VPC. */
export function nodePoolYaml(name: string, vpc: SeededVpc, extra: { extraRequirements: string; extraSpec: string }): string {
  return `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: ${name} }
spec:
  role: nodesmith-node-role
  amiSelectorTerms: [{ alias: al2023@latest }]
  subnetSelectorTerms: [{ tags: { ${vpc.discoveryTag.key}: ${vpc.discoveryTag.value} } }]
  securityGroupSelectorTerms: [{ tags: { ${vpc.discoveryTag.key}: ${vpc.discoveryTag.value} } }]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${name} }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: ${name} }
      requirements:
        - { key: kubernetes.io/os, operator: In, values: [linux] }${extra.extraRequirements}
${extra.extraSpec}`;
}
