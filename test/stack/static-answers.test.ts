import t from 'tap';
import { DescribeInstancesCommand, DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { startFaultProxy } from './fault-proxy.js';
import { startMoto } from './moto.js';

// The fault proxy keeps moto's answer to the reads that cannot change (static-answers.ts) and gives the same bytes
// again without asking moto; every other request still reaches moto.
void t.test('the instance types moto listed once are listed again from what it answered, other reads still ask moto', async (t) => {
  const moto = await startMoto();
  t.teardown(() => moto.stop());
  const proxy = await startFaultProxy(moto.endpoint);
  t.teardown(() => proxy.stop());
  const ec2 = new EC2Client({ endpoint: proxy.endpoint, region: moto.region, credentials: moto.credentials, maxAttempts: 1 });
  t.teardown(() => { ec2.destroy(); });
  // A request no other test makes, so the first answer is moto's, asked now.
  const ask = new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.large', 'c6g.xlarge', 'r7i.2xlarge'] });
  const first = await ec2.send(ask);
  t.same(first.InstanceTypes?.map((i) => i.InstanceType).sort(), ['c6g.xlarge', 'm5.large', 'r7i.2xlarge'], 'moto answered the three types');

  await moto.stop();
  const again = await ec2.send(ask);
  t.same(again.InstanceTypes, first.InstanceTypes, 'with moto stopped, the same answer comes back');
  await t.rejects(ec2.send(new DescribeInstancesCommand({})), 'DescribeInstances is not kept: it went to the stopped moto');
  t.same(proxy.actions, ['DescribeInstanceTypes', 'DescribeInstanceTypes', 'DescribeInstances'], 'and the proxy saw each request');
});
