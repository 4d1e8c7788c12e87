import { CreateRoleCommand, GetInstanceProfileCommand, IAMClient } from '@aws-sdk/client-iam';
import t from 'tap';
import { isNodeClassNotReadyError } from '../../../domain/cloud/errors.js';
import { IamInstanceProfiles } from '../../../provisioner/aws/instance-profiles/iam-instance-profiles.js';
import { defaultRetryPolicy } from '../../../provisioner/aws/sdk/retry-throttled.js';
import { startMoto } from '../moto.js';
import { RecordingClock } from '../../fakes/recording-clock.js';

const moto = await startMoto();
t.teardown(() => moto.stop());
const iam = new IAMClient({ region: moto.region, endpoint: moto.endpoint, credentials: moto.credentials, maxAttempts: 1 });
t.teardown(() => { iam.destroy(); });
const trust = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }] });
for (const role of ['node-role', 'other-role']) await iam.send(new CreateRoleCommand({ RoleName: role, AssumeRolePolicyDocument: trust }));
const profiles = new IamInstanceProfiles(iam, defaultRetryPolicy(new RecordingClock()));
const request = { name: 'prod_123', role: 'node-role', tags: { 'eks:eks-cluster-name': 'prod' }, path: '/karpenter/us-west-2/prod/uid-1/' };

void t.test('ensure creates the profile with its path and tags and attaches the role', async (t) => {
  await profiles.ensure(request);
  const out = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: 'prod_123' }));
  t.equal(out.InstanceProfile?.Path, '/karpenter/us-west-2/prod/uid-1/');
  t.same(out.InstanceProfile?.Roles?.map((r) => r.RoleName), ['node-role']);
  // moto lacks ListInstanceProfileTags; GetInstanceProfile carries the tags in IAM and in moto.
  t.same(out.InstanceProfile?.Tags, [{ Key: 'eks:eks-cluster-name', Value: 'prod' }]);
  t.same(await profiles.get('prod_123'), { name: 'prod_123', roles: ['node-role'] });
});

void t.test('ensure again is a no-op, and a changed role replaces the old one', async (t) => {
  await profiles.ensure(request);
  await profiles.ensure({ ...request, role: 'arn-path/other-role' });
  const out = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: 'prod_123' }));
  t.same(out.InstanceProfile?.Roles?.map((r) => r.RoleName), ['other-role'], 'one role, path stripped');
});

void t.test('a role that does not exist makes the NodeClass not ready, naming the role', async (t) => {
  const error = await profiles.ensure({ ...request, name: 'prod_456', role: 'missing-role' }).catch((e: unknown) => e);
  t.ok(isNodeClassNotReadyError(error), String(error));
  t.match(String(error), /role missing-role not found/);
});

void t.test('delete detaches the role and removes the profile; a second delete is fine', async (t) => {
  await profiles.delete('prod_123');
  t.equal(await profiles.get('prod_123'), undefined);
  await profiles.delete('prod_123');
  t.equal(await profiles.get('never-existed'), undefined);
});
