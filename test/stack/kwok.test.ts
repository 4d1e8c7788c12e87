import t from 'tap';
import type * as k8s from '@kubernetes/client-node';
import { launchableLabel, launchableTaint } from '../../domain/product-keys.js';
import { waitFor } from './wait-for.js';
import { withStack } from './with-stack.js';

const node = (name: string, labels: Record<string, string>, taints: k8s.V1Taint[] = []): k8s.V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec: { taints },
  status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
});

const isReady = (n: k8s.V1Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

void t.test('kwok makes a launched node Ready and its pod Running, and leaves virtual nodes alone', async (t) => {
  const { core } = await withStack(t, { scheduler: false });
  await core.createNode({ body: node('launched-1', { 'karpenter.sh/nodepool': 'default' }) });
  await core.createNode({ body: node('launchable-virtual-1', { [launchableLabel]: 'true' }, [{ ...launchableTaint }]) });

  await waitFor('kwok to make launched-1 Ready', async () => (isReady(await core.readNode({ name: 'launched-1' })) ? true : undefined));
  await core.createNamespacedPod({
    namespace: 'default',
    body: { metadata: { name: 'on-launched' }, spec: { nodeName: 'launched-1', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } },
  });
  const pod = await waitFor('the pod on launched-1 to run', async () => {
    const p = await core.readNamespacedPod({ name: 'on-launched', namespace: 'default' });
    return p.status?.phase === 'Running' ? p : undefined;
  });
  t.equal(pod.status?.phase, 'Running', 'kwok ran the pod bound to the launched node');
  t.ok(pod.status?.podIP, 'the pod got an IP from kwok');

  // kwok acted on launched-1 already; had it managed the virtual node it would have done so by now.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const virtual = await core.readNode({ name: 'launchable-virtual-1' });
  t.notOk(isReady(virtual), 'the virtual node has no Ready condition from kwok');
  t.same(virtual.status?.conditions ?? [], [], 'kwok wrote no conditions on the virtual node');
});
