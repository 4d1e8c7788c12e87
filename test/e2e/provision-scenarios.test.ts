import t from 'tap';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, overcommittedNodes, waitForRunning, withProduct } from './e2e-support.js';
import { applyScenarioPool, nodeTypes, podEvents, scenarioToleration } from './scenario-pools.js';

const zoneOf = (n: { metadata?: { labels?: Record<string, string> } }): string => n.metadata?.labels?.[wellKnown.zone] ?? '?';

void t.test('provisioning scenarios on the real stack', async (t) => {
  const product = await withProduct(t);
  const proxy = product.proxy;

  await t.test('an arm64 nodeSelector launches only arm64 instance types', async (t) => {
    await applyScenarioPool(product, 'arm', { requirements: '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }' });
    await createDeployment(product, { name: 'arm', replicas: 4, nodeSelector: { 'kubernetes.io/arch': 'arm64' }, tolerations: scenarioToleration('arm') });
    const { nodes } = await waitForRunning(product, 'arm', 4);
    for (const node of nodes.values()) t.equal(node.metadata?.labels?.['kubernetes.io/arch'], 'arm64', `${nodeTypes(new Map([['n', node]]))[0] ?? ''} is arm64`);
  });

  await t.test('zone topology spread with maxSkew 1 over three zones holds', async (t) => {
    await applyScenarioPool(product, 'spread');
    await createDeployment(product, {
      name: 'spread', replicas: 6, tolerations: scenarioToleration('spread'),
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: wellKnown.zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }],
    });
    const { pods, nodes } = await waitForRunning(product, 'spread', 6);
    const perZone = new Map<string, number>();
    for (const pod of pods) {
      const zone = zoneOf(nodes.get(pod.spec?.nodeName ?? '') ?? {});
      perZone.set(zone, (perZone.get(zone) ?? 0) + 1);
    }
    t.equal(perZone.size, 3, `pods run in three zones: ${JSON.stringify(Object.fromEntries(perZone))}`);
    t.ok(Math.max(...perZone.values()) - Math.min(...perZone.values()) <= 1, 'the skew is at most 1');
  });

  await t.test('required hostname anti-affinity puts one pod on each node', async (t) => {
    await applyScenarioPool(product, 'anti');
    await createDeployment(product, {
      name: 'anti', replicas: 4, cpu: '250m', memory: '256Mi', tolerations: scenarioToleration('anti'),
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: 'anti' } } }] } },
    });
    const { pods, nodes } = await waitForRunning(product, 'anti', 4);
    t.equal(nodes.size, 4, 'four pods on four distinct nodes');
    t.equal(new Set(pods.map((p) => p.spec?.nodeName)).size, 4);
  });

  await t.test('a spot NodePool launches spot capacity through CreateFleet', async (t) => {
    await applyScenarioPool(product, 'spot', { requirements: '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }' });
    const before = proxy.requests.length;
    await createDeployment(product, { name: 'spot', replicas: 2, tolerations: scenarioToleration('spot') });
    const { nodes } = await waitForRunning(product, 'spot', 2);
    for (const node of nodes.values()) t.equal(node.metadata?.labels?.[wellKnown.capacityType], 'spot', `${node.metadata?.name ?? ''} is labelled spot`);
    const fleets = proxy.requests.slice(before).filter((r) => r.get('Action') === 'CreateFleet');
    t.ok(fleets.length > 0, 'CreateFleet was called');
    t.ok(fleets.every((r) => r.get('TargetCapacitySpecification.DefaultTargetCapacityType') === 'spot'), 'every CreateFleet asked for spot');
    t.ok(fleets.every((r) => r.get('SpotOptions.AllocationStrategy') === 'price-capacity-optimized'), 'with the price-capacity-optimized strategy');
    const ids = new Set([...nodes.keys()]);
    t.ok((await listInstances(product)).filter((i) => ids.has(i.id)).every((i) => i.lifecycle === 'spot'), 'moto reports the instances as spot');
  });

  await t.test('a pod no NodePool can serve stays Pending with an Event that says why, and launches nothing', async (t) => {
    const instancesBefore = (await listInstances(product)).length;
    await product.core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'impossible', labels: { app: 'impossible' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '2000', memory: '1Gi' } } }] } } });
    const event = await waitFor('a FailedProvisioning event', async () => (await podEvents(product, 'impossible')).find((e) => e.reason === 'FailedProvisioning'), { timeoutMs: 60_000 });
    t.match(event.message, /cpu/, `the event names the missing resource: ${event.message ?? ''}`);
    const pod = await product.core.readNamespacedPod({ name: 'impossible', namespace: 'default' });
    t.notOk(pod.spec?.nodeName, 'the pod is not bound');
    t.equal((await listInstances(product)).length, instancesBefore, 'no instance was launched for it');
    await product.core.deleteNamespacedPod({ name: 'impossible', namespace: 'default' });
  });

  await t.test('insufficient capacity for the cheapest offering launches the next one', async (t) => {
    await applyScenarioPool(product, 'ice', { requirements: '\n        - { key: node.kubernetes.io/instance-type, operator: In, values: [c6g.large, c6g.xlarge, m6g.large] }\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }' });
    proxy.failCapacity({ instanceType: 'c6g.large' });
    const before = proxy.requests.length;
    await createDeployment(product, { name: 'ice', replicas: 1, cpu: '1', memory: '1Gi', tolerations: scenarioToleration('ice') });
    const { nodes } = await waitForRunning(product, 'ice', 1);
    const [type] = nodeTypes(nodes);
    t.not(type, 'c6g.large', `the pod runs on ${type ?? '?'}, not on the type without capacity`);
    const asked = proxy.requests.slice(before).filter((r) => r.get('Action') === 'CreateFleet').flatMap((r) => [...r.entries()].filter(([k]) => k.endsWith('.InstanceType')).map(([, v]) => v));
    t.ok(asked.includes('c6g.large'), 'the cheapest offering was tried first');
    proxy.clear();
  });

  await t.test('NodePool limits stop launches, and an Event says so', async (t) => {
    await applyScenarioPool(product, 'limited', { limits: '{ cpu: "4" }', requirements: '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }' });
    await createDeployment(product, { name: 'limited', replicas: 8, cpu: '1', memory: '512Mi', tolerations: scenarioToleration('limited') });
    const event = await waitFor('a pod told about the limit', async () => {
      const pods = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=limited' });
      for (const pod of pods.items.filter((p) => !p.spec?.nodeName)) {
        const found = (await podEvents(product, pod.metadata?.name ?? '')).find((e) => e.reason === 'FailedProvisioning' && /limit/i.test(e.message ?? ''));
        if (found) return found;
      }
      return undefined;
    }, { timeoutMs: 120_000 });
    t.match(event.message, /limit/i, `a waiting pod's Event names the limit: ${event.message ?? ''}`);
    // The plan within the limit is launched as kube-scheduler binds to it; the rest of the pods wait.
    const running = await waitFor('the pods within the limit to run', async () => {
      const pods = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=limited' });
      const bound = pods.items.filter((p) => p.status?.phase === 'Running');
      return bound.length > 0 && pods.items.every((p) => p.status?.phase === 'Running' || !p.spec?.nodeName) ? bound.length : undefined;
    }, { timeoutMs: 120_000 });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const nodes = await product.core.listNode({ labelSelector: 'karpenter.sh/nodepool=limited,!nodesmith.io/launchable' });
    const cpu = nodes.items.reduce((sum, n) => sum + Number(n.metadata?.labels?.['karpenter.k8s.aws/instance-cpu'] ?? 0), 0);
    t.ok(nodes.items.length > 0, `capacity up to the limit was launched: ${String(nodes.items.length)} node(s), ${String(running)} pod(s) running`);
    t.ok(cpu <= 4, `launched capacity stays within the limit: ${String(cpu)} vCPU`);
    const pending = (await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=limited' })).items.filter((p) => !p.spec?.nodeName);
    t.ok(pending.length > 0, `${String(pending.length)} pods wait beyond the limit`);
  });

  await t.test('a pod whose volume lives in one zone gets a node in that zone', async (t) => {
    await applyScenarioPool(product, 'volume');
    const zoneB = `${product.moto.region}b`;
    await product.core.createPersistentVolume({ body: {
      metadata: { name: 'data-b' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', local: { path: '/data' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: wellKnown.zone, operator: 'In', values: [zoneB] }] }] } } },
    } });
    await product.core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: {
      metadata: { name: 'data' }, spec: { storageClassName: 'manual', volumeName: 'data-b', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    } });
    await product.core.createNamespacedPod({ namespace: 'default', body: {
      metadata: { name: 'with-volume', labels: { app: 'volume' } },
      spec: { tolerations: scenarioToleration('volume'), volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '250m', memory: '256Mi' } } }] },
    } });
    const { nodes } = await waitForRunning(product, 'volume', 1);
    const [node] = [...nodes.values()];
    t.equal(zoneOf(node ?? {}), zoneB, `the node was launched in the volume's zone ${zoneB}`);
  });

  await t.test('a pod without the launchable toleration still gets a node, launched for it directly', async (t) => {
    await applyScenarioPool(product, 'untolerated');
    await createDeployment(product, { name: 'untolerated', replicas: 1, tolerations: scenarioToleration('untolerated'), annotations: { 'nodesmith.io/no-launchable-toleration': 'true' } });
    const { pods } = await waitForRunning(product, 'untolerated', 1);
    t.notOk(pods[0]?.spec?.tolerations?.some((tol) => tol.key === 'nodesmith.io/launchable'), 'the pod has no launchable toleration');
    t.ok(pods[0]?.spec?.nodeName?.startsWith('i-'), 'and runs on a launched instance');
  });

  await t.test('an EC2NodeClass whose subnet selector matches nothing is Ready=False, launches nothing, and is used once fixed', async (t) => {
    const nodeClass = async (name: string): Promise<{ status?: { subnets?: unknown[]; conditions?: { type: string; status: string; message: string }[] } }> =>
      JSON.parse((await product.stack.kubectl(['get', 'ec2nodeclass', name, '-o', 'json'])).stdout) as never;
    const condition = (nc: Awaited<ReturnType<typeof nodeClass>>, type: string): { status: string; message: string } | undefined => nc.status?.conditions?.find((c) => c.type === type);
    const healthy = await waitFor('a working class to be Ready', async () => { const nc = await nodeClass('arm'); return condition(nc, 'Ready')?.status === 'True' ? nc : undefined; }, { timeoutMs: 60_000 });
    t.ok((healthy.status?.subnets?.length ?? 0) > 0, 'a Ready class lists its subnets in status');
    await applyScenarioPool(product, 'nosubnet');
    // As fetched, less the resourceVersion: the status controller writes meanwhile, and apply must not conflict.
    const good = { stdout: (await product.stack.kubectl(['get', 'ec2nodeclass', 'nosubnet', '-o', 'yaml'])).stdout.replace(/ *resourceVersion: .*\n/, '') };
    const broken = good.stdout.replace(/subnetSelectorTerms:\n(\s+)- tags:\n(\s+)(\S+): (\S+)/, 'subnetSelectorTerms:\n$1- tags:\n$2$3: no-such-subnet');
    t.not(broken, good.stdout, 'the test broke the selector');
    await product.stack.kubectl(['apply', '-f', '-'], broken);
    const notReady = await waitFor('the class to turn Ready=False', async () => { const nc = await nodeClass('nosubnet'); return condition(nc, 'SubnetsReady')?.status === 'False' ? nc : undefined; }, { timeoutMs: 60_000 });
    t.match(condition(notReady, 'Ready')?.message, /SubnetsReady=False: .*no subnet matches subnetSelectorTerms/, 'Ready says which dependency failed');
    await createDeployment(product, { name: 'nosubnet', replicas: 1, tolerations: scenarioToleration('nosubnet') });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // Only this pool's instances count: earlier scenarios' pools may still be launching for their own pods.
    const launched = (await listInstances(product)).filter((i) => i.tags['karpenter.sh/nodepool'] === 'nosubnet');
    t.same(launched.map((i) => `${i.id} ${i.state}`), [], 'nothing is launched for a NodePool whose class is not ready');
    const events = (await product.core.listEventForAllNamespaces()).items;
    t.ok(events.some((e) => e.reason === 'NodeClassNotReady' && e.involvedObject.name === 'nosubnet'), 'a Warning Event on the EC2NodeClass');
    await product.stack.kubectl(['apply', '-f', '-'], good.stdout);
    const { pods } = await waitForRunning(product, 'nosubnet', 1);
    t.equal(pods.length, 1, 'once the selector matches again, the pod gets a node');
  });

  await t.test('after every scenario no node holds pods requesting more than it has', async (t) => {
    t.same(await overcommittedNodes(product), []);
  });
});
