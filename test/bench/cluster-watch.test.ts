import t from 'tap';
import type { Instance } from '@aws-sdk/client-ec2';
import type { V1Node } from '@kubernetes/client-node';
import { bootSeconds } from './cluster-watch.js';

const instance = (id: string, type: string, launched = '2026-11-26T04:00:00Z'): Instance => ({ InstanceId: id, InstanceType: type as Instance['InstanceType'], LaunchTime: new Date(launched) });
const node = (id: string, created: string): V1Node => ({ metadata: { name: id, creationTimestamp: new Date(created) }, spec: { providerID: `aws:///us-west-2a/${id}` } });

void t.test('boot time is launch to Node creation, median and max, for the Nodes of the listed instances only', (t) => {
  const instances = [instance('i-1', 'c6g.xlarge'), instance('i-2', 'c6g.xlarge'), instance('i-3', 'c6g.xlarge')];
  const nodes = [node('i-1', '2026-11-26T04:00:01Z'), node('i-2', '2026-11-26T04:00:02Z'), node('i-3', '2026-11-26T04:00:07Z'), node('i-9', '2026-11-26T05:00:00Z')];
  t.same(bootSeconds(instances, nodes), [2, 7]);
  t.same(bootSeconds(instances, []), [Number.NaN, Number.NaN], 'no Node: no figure');
  t.end();
});
