import t from 'tap';
import type { DescribePlacementGroupsCommandInput } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../../domain/clock.js';
import { describePlacementGroupsInput, resolvePlacementGroup } from '../../../../provisioner/aws/discovery/placement-groups.js';
import { EC2Client } from '../../../../provisioner/aws/sdk/sdk.js';

const retry = { clock: new FakeClock(0), maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };

/** An EC2 that answers DescribePlacementGroups with this reply (or error) and records each request. */
function ec2Answering(reply: unknown): { ec2: EC2Client; asked: DescribePlacementGroupsCommandInput[] } {
  const asked: DescribePlacementGroupsCommandInput[] = [];
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  ec2.send = ((command: { input: DescribePlacementGroupsCommandInput }) => {
    asked.push(command.input);
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  }) as EC2Client['send'];
  return { ec2, asked };
}

/** An SDK error as the client raises it: the EC2 code is its name, with response metadata. */
function ec2Error(code: string): Error {
  return Object.assign(new Error(`${code} (test)`), { name: code, $metadata: { httpStatusCode: 400 } });
}

void t.test('the request is Karpenter\'s: available groups only, by id when the selector has one, else by name', (t) => {
  t.same(describePlacementGroupsInput({ id: 'pg-0123' }), { Filters: [{ Name: 'state', Values: ['available'] }], GroupIds: ['pg-0123'] });
  t.same(describePlacementGroupsInput({ name: 'training' }), { Filters: [{ Name: 'state', Values: ['available'] }], GroupNames: ['training'] });
  t.end();
});

void t.test('the first group EC2 lists is the class\'s, with its strategy, partitions and spread level', async (t) => {
  const { ec2, asked } = ec2Answering({ PlacementGroups: [
    { GroupId: 'pg-1', GroupName: 'kafka', Strategy: 'partition', PartitionCount: 4, State: 'available' },
    { GroupId: 'pg-2', GroupName: 'other', Strategy: 'cluster', State: 'available' },
  ] });
  t.same(await resolvePlacementGroup(ec2, retry, { name: 'kafka' }), { found: { id: 'pg-1', name: 'kafka', strategy: 'partition', partitionCount: 4 } });
  t.equal(asked.length, 1);
  const spread = ec2Answering({ PlacementGroups: [{ GroupId: 'pg-3', GroupName: 'etcd', Strategy: 'spread', SpreadLevel: 'rack' }] });
  t.same(await resolvePlacementGroup(spread.ec2, retry, { id: 'pg-3' }), { found: { id: 'pg-3', name: 'etcd', strategy: 'spread', partitionCount: 0, spreadLevel: 'rack' } });
});

void t.test('no available group is not-found; an EC2 refusal of the selector is refused; anything else is thrown', async (t) => {
  t.match(await resolvePlacementGroup(ec2Answering({ PlacementGroups: [] }).ec2, retry, { name: 'gone' }), { missing: 'not-found' });
  t.match(await resolvePlacementGroup(ec2Answering({}).ec2, retry, { name: 'gone' }), { missing: 'not-found' });
  t.match(await resolvePlacementGroup(ec2Answering({ PlacementGroups: [{ GroupId: 'pg-4', Strategy: 'rack' }] }).ec2, retry, { id: 'pg-4' }), { missing: 'not-found' }, 'a strategy EC2 has no launch for is none');
  t.match(await resolvePlacementGroup(ec2Answering(ec2Error('InvalidPlacementGroup.Unknown')).ec2, retry, { name: 'gone' }), { missing: 'refused', detail: /InvalidPlacementGroup.Unknown/ });
  t.match(await resolvePlacementGroup(ec2Answering(ec2Error('InvalidPlacementGroupId.Malformed')).ec2, retry, { id: 'pg-x' }), { missing: 'refused' });
  await t.rejects(resolvePlacementGroup(ec2Answering(ec2Error('UnauthorizedOperation')).ec2, retry, { name: 'x' }), /UnauthorizedOperation/);
});
