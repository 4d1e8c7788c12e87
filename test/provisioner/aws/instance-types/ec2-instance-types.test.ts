import t from 'tap';
import { readFileSync } from 'node:fs';
import { EC2Client, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { FakeClock } from '../../../../domain/clock.js';
import { CreateError, NodeClassNotReadyError } from '../../../../domain/cloud/errors.js';
import { Ec2InstanceTypes } from '../../../../provisioner/aws/instance-types/ec2-instance-types.js';
import type { RetryPolicy } from '../../../../provisioner/aws/sdk/retry-throttled.js';

const described = JSON.parse(readFileSync(new URL('fixtures/describe-instance-types.json', import.meta.url), 'utf8')) as InstanceTypeInfo[];
const retry: RetryPolicy = { clock: new FakeClock(), maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** A real EC2Client (the SDK's paginators want one) whose send answers from pages instead of the network. */
function fakeEc2(pages: { types: InstanceTypeInfo[][]; offerings: [string, string][][]; failure?: Error }): { ec2: EC2Client; sent: Sent[] } {
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const sent: Sent[] = [];
  const page = <T>(list: T[][], token: unknown): { items: T[]; NextToken?: string } => {
    const index = typeof token === 'string' ? Number(token) : 0;
    return { items: list[index] ?? [], ...(index + 1 < list.length ? { NextToken: String(index + 1) } : {}) };
  };
  ec2.send = (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    sent.push({ command: command.constructor.name, input: command.input });
    if (pages.failure !== undefined) return Promise.reject(pages.failure);
    if (command.constructor.name === 'DescribeInstanceTypesCommand') {
      const { items, ...rest } = page(pages.types, command.input['NextToken']);
      return Promise.resolve({ InstanceTypes: items, ...rest });
    }
    const { items, ...rest } = page(pages.offerings, command.input['NextToken']);
    return Promise.resolve({ InstanceTypeOfferings: items.map(([type, zone]) => ({ InstanceType: type, Location: zone, LocationType: 'availability-zone' })), ...rest });
  };
  return { ec2, sent };
}

void t.test('every page of both calls is read, with the filters Karpenter sends', async (t) => {
  const { ec2, sent } = fakeEc2({
    types: [described.slice(0, 3), described.slice(3, 6), described.slice(6)],
    offerings: [[['m5.large', 'us-east-1a'], ['m5.large', 'us-east-1b']], [['r9g.large', 'us-east-1c'], ['m5.large', 'us-east-1c']]],
  });
  const answer = await new Ec2InstanceTypes(ec2, retry).describe();
  t.equal(sent.filter((s) => s.command === 'DescribeInstanceTypesCommand').length, 3, 'three pages of types');
  t.equal(sent.filter((s) => s.command === 'DescribeInstanceTypeOfferingsCommand').length, 2, 'two pages of offerings');
  t.same(sent.find((s) => s.command === 'DescribeInstanceTypesCommand')?.input['Filters'], [
    { Name: 'supported-virtualization-type', Values: ['hvm'] },
    { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
  ]);
  t.equal(sent.find((s) => s.command === 'DescribeInstanceTypeOfferingsCommand')?.input['LocationType'], 'availability-zone');
  t.same(answer.zonesByType.get('m5.large'), ['us-east-1a', 'us-east-1b', 'us-east-1c']);
  t.same(answer.zonesByType.get('r9g.large'), ['us-east-1c'], 'a type unknown to the snapshot has its zones too');
  t.ok(answer.entries.some((e) => e.name === 'r9g.large'), 'and is in the answer');
  t.notOk(answer.entries.some((e) => e.name === 'mac2.metal'), 'a mac type is not a Kubernetes node');
  t.same(answer.capacityTypesByType.get('p4d.24xlarge'), ['on-demand', 'spot'], 'capacity-block is not a capacity type the planner buys');
});

void t.test('an empty answer is an error, not a region without instance types', async (t) => {
  await t.rejects(new Ec2InstanceTypes(fakeEc2({ types: [[]], offerings: [[['m5.large', 'us-east-1a']]] }).ec2, retry).describe(), /returned no instance types/);
  await t.rejects(new Ec2InstanceTypes(fakeEc2({ types: [described], offerings: [[]] }).ec2, retry).describe(), /returned no offerings/);
});

void t.test('errors are classified at the edge: refused credentials make the NodeClass not ready', async (t) => {
  const denied = Object.assign(new Error('not authorized'), { name: 'UnauthorizedOperation', $metadata: {} });
  await t.rejects(new Ec2InstanceTypes(fakeEc2({ types: [], offerings: [], failure: denied }).ec2, retry).describe(), NodeClassNotReadyError);
  const down = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const error = await new Ec2InstanceTypes(fakeEc2({ types: [], offerings: [], failure: down }).ec2, retry).describe().catch((e: unknown) => e);
  t.ok(error instanceof CreateError);
  t.match((error as Error).message, /^describing instance types: error: socket hang up/);
});
