import type { Moto } from './moto.js';

/**
 * Registers the test cluster in moto's EKS, for the one EKS call Karpenter makes that no setting avoids: with the
 * AL2023 AMI family its EC2NodeClass stays not Ready until DescribeCluster gives it the service CIDR (it goes into
 * nodeadm's NodeConfig). There is no EKS client among our dependencies, so this is the REST call itself; moto
 * picks the service from the credential scope and does not check the signature.
 */
export async function registerEksCluster(moto: Moto, cluster: { name: string; version: string; serviceCidr: string; subnetIds: readonly string[] }): Promise<void> {
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const res = await fetch(`${moto.endpoint}/clusters`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `AWS4-HMAC-SHA256 Credential=${moto.credentials.accessKeyId}/${day}/${moto.region}/eks/aws4_request, SignedHeaders=host, Signature=unchecked`,
    },
    body: JSON.stringify({
      name: cluster.name,
      version: cluster.version,
      roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
      resourcesVpcConfig: { subnetIds: cluster.subnetIds },
      kubernetesNetworkConfig: { serviceIpv4Cidr: cluster.serviceCidr, ipFamily: 'ipv4' },
    }),
  });
  if (!res.ok) throw new Error(`EKS CreateCluster on moto answered ${String(res.status)}: ${await res.text()}`);
  await res.body?.cancel();
}
