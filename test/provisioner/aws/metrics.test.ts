import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClock } from '../../../domain/clock.js';
import { InsufficientCapacityError, NodeClaimNotFoundError } from '../../../domain/cloud/errors.js';
import { FakeCloudProvider } from '../../../domain/cloud/fake-cloud-provider.js';
import { karpenterErrorLabel, withCloudProviderMetrics } from '../../../provisioner/aws/metrics.js';

void t.test('the decorator times every method and counts failures with Karpenter labels', async (t) => {
  const registry = new Registry();
  const clock = new FakeClock();
  const fake = new FakeCloudProvider(clock);
  const cloud = withCloudProviderMetrics(fake, { registry, clock, controller: 'nodeclaim.lifecycle' });
  t.equal(cloud.name, 'fake');
  await cloud.list();
  await cloud.getInstanceTypes();
  await t.rejects(cloud.get('aws:///a/i-1'), NodeClaimNotFoundError);
  await t.rejects(cloud.delete('aws:///a/i-1'), NodeClaimNotFoundError);
  fake.nextError = new Error('socket hang up');
  await t.rejects(cloud.list());
  const text = await registry.metrics();
  t.match(text, /nodesmith_cloudprovider_duration_seconds_count\{controller="nodeclaim.lifecycle",method="List",provider="fake"\} 2/);
  t.match(text, /nodesmith_cloudprovider_duration_seconds_count\{controller="nodeclaim.lifecycle",method="GetInstanceTypes",provider="fake"\} 1/);
  t.match(text, /nodesmith_cloudprovider_errors_total\{controller="nodeclaim.lifecycle",method="Get",provider="fake",error="NodeClaimNotFoundError"\} 1/);
  t.match(text, /nodesmith_cloudprovider_errors_total\{controller="nodeclaim.lifecycle",method="Delete",provider="fake",error="NodeClaimNotFoundError"\} 1/);
  t.match(text, /nodesmith_cloudprovider_errors_total\{controller="nodeclaim.lifecycle",method="List",provider="fake",error=""\} 1/, 'an unknown error is "" as in Karpenter');
  const again = withCloudProviderMetrics(fake, { registry, clock, controller: 'provisioner.launch' });
  await again.list();
  const shared = await registry.metrics();
  t.match(shared, /duration_seconds_count\{controller="provisioner.launch",method="List",provider="fake"\} 1/, 'a second decorator shares the instruments under its own controller label');
  t.match(shared, /duration_seconds_count\{controller="nodeclaim.lifecycle",method="List",provider="fake"\} 2/);
});

void t.test('error types are named as Karpenter names them', (t) => {
  t.equal(karpenterErrorLabel(new InsufficientCapacityError('no capacity', [])), 'InsufficientCapacityError');
  t.equal(karpenterErrorLabel(new NodeClaimNotFoundError('gone')), 'NodeClaimNotFoundError');
  t.equal(karpenterErrorLabel(new Error('boom')), '');
  t.end();
});
