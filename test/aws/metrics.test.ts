import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClock } from '../../domain/clock.js';
import { NodeClaimNotFoundError } from '../../domain/cloud/errors.js';
import { FakeCloudProvider } from '../../domain/cloud/fake-cloud-provider.js';
import { withCloudProviderMetrics } from '../../provisioner/aws/metrics.js';

void t.test(
  'the decorator times every method and counts failures by domain error code',
  async (t) => {
    const registry = new Registry();
    const clock = new FakeClock();
    const fake = new FakeCloudProvider(clock);
    const cloud = withCloudProviderMetrics(fake, { registry, clock });
    t.equal(cloud.name, 'fake');
    await cloud.list();
    await cloud.getInstanceTypes();
    await t.rejects(cloud.get('aws:///a/i-1'), NodeClaimNotFoundError);
    await t.rejects(cloud.delete('aws:///a/i-1'), NodeClaimNotFoundError);
    fake.nextError = new Error('socket hang up');
    await t.rejects(cloud.list());
    const text = await registry.metrics();
    t.match(text, /nodesmith_cloudprovider_duration_seconds_count\{method="list"\} 2/);
    t.match(text, /nodesmith_cloudprovider_duration_seconds_count\{method="getInstanceTypes"\} 1/);
    t.match(
      text,
      /nodesmith_cloudprovider_errors_total\{method="get",error="NodeClaimNotFound"\} 1/,
    );
    t.match(
      text,
      /nodesmith_cloudprovider_errors_total\{method="delete",error="NodeClaimNotFound"\} 1/,
    );
    t.match(text, /nodesmith_cloudprovider_errors_total\{method="list",error="Unknown"\} 1/);
    const again = withCloudProviderMetrics(fake, { registry, clock });
    await again.list();
    t.match(
      await registry.metrics(),
      /duration_seconds_count\{method="list"\} 3/,
      'a second decorator shares the instruments',
    );
  },
);
