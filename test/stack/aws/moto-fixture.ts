import type { Test } from 'tap';
import type { LaunchRequest } from '../../../domain/cloud/cloud-provider.js';
import type { NodeClassSpec, ResolvedNodeClass } from '../../../domain/cloud/node-class.js';
import type { CapacityType, LaunchOffering } from '../../../domain/cloud/offering.js';
import { eksAliasParameters } from '../../../provisioner/aws/images/ami-alias.js';
import { createAwsClients, type AwsClients } from '../../../provisioner/aws/sdk/aws-clients.js';
import { AwsCloudProvider } from '../../../provisioner/aws/aws-cloud-provider.js';
import { AwsNodeClassResolver } from '../../../provisioner/aws/nodeclass-resolver.js';
import type { RetryPolicy } from '../../../provisioner/aws/sdk/retry-throttled.js';
import { RecordingClock } from '../../fakes/recording-clock.js';
import { startFaultProxy, type FaultProxy } from '../fault-proxy.js';
import { seedVpc, startMoto, type Moto, type SeededVpc } from '../moto.js';

export interface MotoWorld {
  readonly moto: Moto;
  readonly proxy: FaultProxy;
  readonly vpc: SeededVpc;
  readonly clients: AwsClients;
  readonly clock: RecordingClock;
  readonly provider: AwsCloudProvider;
  readonly resolver: AwsNodeClassResolver;
  readonly clusterName: string;
}

export const clusterName = 'moto-test';

/** moto, the fault proxy in front of it, a seeded VPC, and the adapter pointed at the proxy. */
export async function startMotoWorld(t: Test): Promise<MotoWorld> {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  t.teardown(() => {
    if (!t.passing()) t.comment(moto.tail());
  });
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const vpc = await seedVpc(moto, clusterName);
  const clients = createAwsClients({
    region: moto.region,
    endpoint: proxy.endpoint,
    credentials: moto.credentials,
  });
  t.teardown(() => {
    clients.destroy();
  });
  const clock = new RecordingClock();
  const retry: RetryPolicy = {
    clock,
    maxAttempts: 4,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    random: () => 0.5,
  };
  const provider = new AwsCloudProvider({
    ec2: clients.ec2,
    clock,
    retry,
    cluster: {
      name: clusterName,
      endpoint: 'https://127.0.0.1:6443',
      certificateAuthority: 'Q0E=',
      serviceCidr: '10.96.0.0/12',
    },
  });
  const resolver = new AwsNodeClassResolver({
    ec2: clients.ec2,
    ssm: clients.ssm,
    retry,
    aliasParameters: eksAliasParameters(vpc.kubernetesVersion, vpc.amiParameterPrefix),
  });
  return { moto, proxy, vpc, clients, clock, provider, resolver, clusterName };
}

export function nodeClassSpec(
  vpc: SeededVpc,
  overrides: Partial<NodeClassSpec> = {},
): NodeClassSpec {
  const tags = { [vpc.discoveryTag.key]: vpc.discoveryTag.value };
  return {
    name: 'default',
    subnetSelectorTerms: [{ tags }],
    securityGroupSelectorTerms: [{ tags }],
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    instanceProfile: 'nodesmith-node',
    tags: { team: 'platform' },
    ...overrides,
  };
}

export function offering(
  instanceType: string,
  zone: string,
  price: number,
  capacityType: CapacityType = 'spot',
): LaunchOffering {
  const architecture = /^[a-z]+\d+g/.test(instanceType) ? 'arm64' : 'amd64';
  return { instanceType, zone, price, capacityType, architecture, kubelet: {} };
}

export function launchRequest(
  nodeClass: ResolvedNodeClass,
  offerings: LaunchOffering[],
  overrides: Partial<LaunchRequest> = {},
): LaunchRequest {
  return {
    nodeClaimName: 'default-abcde',
    nodePoolName: 'default',
    nodeClass,
    offerings,
    capacityType: offerings[0]?.capacityType ?? 'spot',
    nodeLabels: { 'karpenter.sh/nodepool': 'default' },
    nodeTaints: [{ key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' }],
    ...overrides,
  };
}
