import t from 'tap';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { Registry } from 'prom-client';
import { FakeClock } from '../../../../domain/clock.js';
import { Ec2CallBatcher, instanceBatchWindow } from '../../../../provisioner/aws/sdk/ec2-call-batcher.js';
import { batcherMetrics } from '../../../../provisioner/aws/sdk/batcher-metrics.js';
import { describeInstancesBatch, terminateInstancesBatch } from '../../../../provisioner/aws/instances/instance-batches.js';
import { defaultRetryPolicy } from '../../../../provisioner/aws/sdk/retry-throttled.js';

interface Sent { readonly command: string; readonly ids: readonly string[] }

/** EC2 as it answers: one unknown id fails a whole DescribeInstances or TerminateInstances call. */
function fakeEc2(known: ReadonlySet<string>): { ec2: EC2Client; sent: Sent[] } {
  const sent: Sent[] = [];
  const send = (command: { constructor: { name: string }; input: { InstanceIds?: string[] } }): Promise<unknown> => {
    const ids = command.input.InstanceIds ?? [];
    sent.push({ command: command.constructor.name, ids });
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) return Promise.reject(Object.assign(new Error(`The instance ID '${unknown}' does not exist`), { name: 'InvalidInstanceID.NotFound', $metadata: {} }));
    if (command.constructor.name === 'TerminateInstancesCommand') return Promise.resolve({ TerminatingInstances: ids.map((InstanceId) => ({ InstanceId })) });
    return Promise.resolve({ Reservations: [{ Instances: ids.map((InstanceId) => ({ InstanceId, InstanceType: 'm5.large', Placement: { AvailabilityZone: 'us-east-1a' }, State: { Name: 'running' } })) }] });
  };
  return { ec2: { send } as unknown as EC2Client, sent };
}

void t.test('three nodes terminated together cost one TerminateInstances call', async (t) => {
  const clock = new FakeClock();
  const { ec2, sent } = fakeEc2(new Set(['i-1', 'i-2', 'i-3']));
  const registry = new Registry();
  const report = batcherMetrics(registry);
  const batcher = new Ec2CallBatcher({ window: instanceBatchWindow, clock, execute: terminateInstancesBatch(ec2, defaultRetryPolicy(clock)), onBatch: (r) => { report('terminate_instances', r); } });
  const answers = ['i-1', 'i-2', 'i-3'].map((id) => batcher.add(id));
  clock.step(100);
  t.same(await Promise.all(answers), ['terminating', 'terminating', 'terminating']);
  t.same(sent, [{ command: 'TerminateInstancesCommand', ids: ['i-1', 'i-2', 'i-3'] }]);
  const text = await registry.metrics();
  t.match(text, /nodesmith_cloudprovider_batcher_batch_size_sum\{batcher="terminate_instances"\} 3/, 'batch_size counts the items');
  t.match(text, /nodesmith_cloudprovider_batcher_batch_time_seconds_sum\{batcher="terminate_instances"\} 0\.1/, 'batch_time_seconds the window');
});

void t.test('one unknown id in a terminate batch is retried alone, so it does not fail the others', async (t) => {
  const clock = new FakeClock();
  const { ec2, sent } = fakeEc2(new Set(['i-1', 'i-3']));
  const terminate = terminateInstancesBatch(ec2, defaultRetryPolicy(clock));
  t.same(await terminate(['i-1', 'i-gone', 'i-3']), [{ ok: true, value: 'terminating' }, { ok: true, value: 'not-found' }, { ok: true, value: 'terminating' }]);
  t.same(sent.map((s) => s.ids), [['i-1', 'i-gone', 'i-3'], ['i-1'], ['i-gone'], ['i-3']]);
});

void t.test('describe answers each id, undefined for one EC2 does not know, in one call when all are known', async (t) => {
  const clock = new FakeClock();
  const { ec2, sent } = fakeEc2(new Set(['i-1', 'i-2']));
  const describe = describeInstancesBatch(ec2, defaultRetryPolicy(clock));
  const known = await describe(['i-2', 'i-1', 'i-2']);
  t.same(known.map((o) => (o.ok ? o.value?.instanceId : 'error')), ['i-2', 'i-1', 'i-2'], 'each caller gets its instance, duplicates asked once');
  t.same(sent.map((s) => s.ids), [['i-2', 'i-1']]);
  const mixed = await describe(['i-1', 'i-9']);
  t.same(mixed.map((o) => (o.ok ? o.value?.instanceId ?? 'none' : 'error')), ['i-1', 'none']);
});
