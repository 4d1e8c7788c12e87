import t from 'tap';
import { EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { clusterInstances } from '../bench/cluster-watch.js';
import { startFaultProxy } from './fault-proxy.js';
import { startMoto } from './moto.js';

// The side-by-side bench's instance listing (test/bench/cluster-watch.ts) starts again from its first page when a
// page fails, as moto's DescribeInstances paging does under a scale-down (docs/moto-differences.md), and reports
// the errors once it has tried enough.
void t.test('a failed instance listing is started again, and reported after five tries', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const ec2 = new EC2Client({ endpoint: moto.endpoint, region: moto.region, credentials: moto.credentials });
  t.teardown(() => { ec2.destroy(); });
  await ec2.send(new RunInstancesCommand({
    ImageId: 'ami-12c6146b', InstanceType: 't3.micro', MinCount: 2, MaxCount: 2,
    TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'kubernetes.io/cluster/race', Value: 'owned' }] }],
  }));
  const throughProxy = { ...moto, endpoint: proxy.endpoint };

  // The SDK tries each call 3 times: 6 failures fail the first two listings whole, and the third lists.
  proxy.failAction('DescribeInstances', { times: 6, code: 'InternalError', status: 500 });
  t.equal((await clusterInstances(throughProxy, 'race')).length, 2, 'the third listing returned both instances');

  proxy.failAction('DescribeInstances', { times: 100, code: 'InternalError', status: 500 });
  await t.rejects(clusterInstances(throughProxy, 'race'), /listing the cluster's instances failed 5 times/, 'after five failed listings the bench hears of it');
});
