import t from 'tap';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { NodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import type { NodeClassSpec } from '../../../domain/cloud/node-class.js';
import { eksAliasParameters } from '../../../provisioner/aws/images/ami-alias.js';
import { AwsNodeClassResolver } from '../../../provisioner/aws/nodeclass-resolver.js';
import { RecordingClock } from '../../fakes/recording-clock.js';

/** Clients that record each call and answer none: a class refused before any AWS call never reaches them. */
function resolverWithoutAws(): { resolver: AwsNodeClassResolver; calls: string[] } {
  const calls: string[] = [];
  const client = { send: (command: object) => { calls.push(command.constructor.name); return Promise.reject(new Error('no AWS in this test')); } };
  const retry = { clock: new RecordingClock(), maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
  const resolver = new AwsNodeClassResolver({
    ec2: client as unknown as EC2Client, ssm: client as unknown as SSMClient, retry, aliasParameters: eksAliasParameters('1.33'),
  });
  return { resolver, calls };
}

const bottlerocket: NodeClassSpec = {
  name: 'bottlerocket', subnetSelectorTerms: [{ id: 'subnet-1' }], securityGroupSelectorTerms: [{ id: 'sg-1' }],
  amiSelectorTerms: [{ alias: 'bottlerocket@latest' }], instanceProfile: 'node', kubelet: { podsPerCore: 4 },
};

void t.test('a Bottlerocket class with podsPerCore admitted before the rule stays NotReady, naming the field', async (t) => {
  const { resolver, calls } = resolverWithoutAws();
  const error: unknown = await resolver.resolve(bottlerocket).catch((e: unknown) => e);
  t.ok(error instanceof NodeClassNotReadyError, 'NotReady, as Karpenter keeps it, not a crash');
  t.match((error as Error).message, /spec\.kubelet\.podsPerCore: podsPerCore is not applied by the Bottlerocket AMI family/);
  t.same(calls, [], 'refused before any AWS call');
});

void t.test('the same settings on a Custom class go on to resolve its selectors', async (t) => {
  const { resolver } = resolverWithoutAws();
  const error: unknown = await resolver.resolve({ ...bottlerocket, amiFamily: 'Custom' }).catch((e: unknown) => e);
  t.ok(error instanceof Error, 'this test has no AWS to resolve subnets against');
  t.notMatch((error as Error).message, /podsPerCore/, 'Custom user data is the user\'s own: not refused for the kubelet');
});
