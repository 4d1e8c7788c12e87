// Real stack: the unmodified kube-scheduler calls our extender (filter, prioritize, bind) over HTTP, with
// kwok playing the kubelet. Proves the wiring the unit tests cannot: the recorded wire format, the informer
// feed, the Binding through the API, and a pod that fits only a virtual node ending up on the node it became.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import t from 'tap';
import { Registry } from 'prom-client';
import { scaleInRank } from '../../domain/disruption/scale-in-rank.js';
import { podDeletionCostKey } from '../../domain/karpenter-keys.js';
import { launchableLabel, launchableTaint } from '../../domain/product-keys.js';
import { serve } from '../../extender/serve.js';
import { KubePodBinder } from '../../provisioner/kube/binder.js';
import { startClusterInformers } from '../../provisioner/kube/cluster-informers.js';
import type { Materializer } from '../../provisioner/index.js';
import { ClusterState } from '../../provisioner/state/cluster-state.js';
import { freePort } from '../stack/free-port.js';
import { waitFor } from '../stack/wait-for.js';
import { withStack } from '../stack/with-stack.js';
import { issueLocalCertificates } from '../webhooks/tls-fixture.js';

const nodeBody = (name: string, cpu: string, labels: Record<string, string> = {}, taints: k8s.V1Taint[] = []): k8s.V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'us-east-1a', ...labels } },
  spec: { taints },
  status: { capacity: { cpu, memory: '32Gi', pods: '110' }, allocatable: { cpu, memory: '32Gi', pods: '110' } },
});

const podBody = (name: string, cpu: string, tolerations: k8s.V1Toleration[] = [], nodeSelector?: Record<string, string>): k8s.V1Pod => ({
  metadata: { name, namespace: 'default' },
  spec: {
    tolerations,
    ...(nodeSelector === undefined ? {} : { nodeSelector }),
    containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu, memory: '256Mi' } } }],
  },
});

/** Stands in for the provisioner's launch: creates the real Node (kwok makes it Ready) and drops the virtual one. */
class NodeCreatingMaterializer implements Materializer {
  private readonly core: k8s.CoreV1Api;
  readonly calls: string[] = [];
  /** Stretches the launch so that concurrent binds really overlap. */
  launchDelayMs = 0;
  constructor(core: k8s.CoreV1Api) {
    this.core = core;
  }
  async materialize(virtualNodeName: string): Promise<{ nodeName: string }> {
    this.calls.push(virtualNodeName);
    await new Promise((resolve) => setTimeout(resolve, this.launchDelayMs));
    const nodeName = `ip-10-0-0-${this.calls.length}.ec2.internal`;
    // The real node carries the plan's labels, as the NodeClaim's would; only the launchable label goes.
    const planned = (await this.core.readNode({ name: virtualNodeName })).metadata?.labels ?? {};
    const labels = Object.fromEntries(Object.entries(planned).filter(([key]) => key !== launchableLabel && key !== 'kubernetes.io/hostname'));
    await this.core.createNode({ body: nodeBody(nodeName, '8', labels) });
    await this.core.deleteNode({ name: virtualNodeName });
    return { nodeName };
  }
}

/**
 * Read-modify-write of the status; kube-controller-manager may touch a new node meanwhile (409), so retry. The pods
 * tolerate not-ready, so kube-scheduler may bind one to the node (and the bind materialise and delete it) before
 * it is marked Ready: a node already gone has done its job.
 */
async function markReady(core: k8s.CoreV1Api, name: string): Promise<void> {
  const status = (error: unknown): number | undefined => (error instanceof k8s.ApiException ? error.code : undefined);
  for (let attempt = 1; ; attempt++) {
    try {
      const node = await core.readNode({ name });
      const now = new Date();
      node.status = { capacity: node.status?.capacity ?? {}, allocatable: node.status?.allocatable ?? {}, conditions: [{ type: 'Ready', status: 'True', reason: 'NodesmithPlanned', message: 'virtual node', lastHeartbeatTime: now, lastTransitionTime: now }] };
      await core.replaceNodeStatus({ name, body: node });
      return;
    } catch (error) {
      if (status(error) === 404) return;
      if (status(error) !== 409 || attempt >= 5) throw error;
    }
  }
}

async function publishVirtualNode(core: k8s.CoreV1Api, model: ClusterState, planned: { name: string; assignedPods: string[]; labels?: Record<string, string> }): Promise<void> {
  const { name, assignedPods, labels = {} } = planned;
  // Plans come from the provisioner in production; here the test puts them into the model as the planner does.
  model.upsertPlan({ nodeName: name, nodePool: 'default', instanceTypes: ['m7i.2xlarge'], pricePerHour: 0.4032, capacityType: 'on-demand', zone: 'us-east-1a', assignedPods, room: { cpu: '7800m', memory: '30Gi', pods: '58' } });
  await core.createNode({ body: nodeBody(name, '8', { [launchableLabel]: 'true', 'karpenter.sh/nodepool': 'default', ...labels }, [{ ...launchableTaint }]) });
  await markReady(core, name);
}

const launchTolerations: k8s.V1Toleration[] = [
  { key: launchableTaint.key, operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' },
];

async function waitUnschedulable(core: k8s.CoreV1Api, name: string): Promise<void> {
  await waitFor(`${name} to be reported unschedulable`, async () => {
    const p = await core.readNamespacedPod({ name, namespace: 'default' });
    return p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') === true ? true : undefined;
  });
}

async function waitBound(core: k8s.CoreV1Api, name: string): Promise<string> {
  return waitFor(`${name} to be bound`, async () => {
    const p = await core.readNamespacedPod({ name, namespace: 'default' });
    return p.spec?.nodeName === undefined || p.spec.nodeName === '' ? undefined : p.spec.nodeName;
  }, { timeoutMs: 90_000 });
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** `replicas` pods of 900m on the team=rank nodes of 2 CPUs: two to a node. */
function rankedDeployment(replicas: number): k8s.V1Deployment {
  const selector = { app: 'ranked' };
  return {
    metadata: { name: 'ranked' },
    spec: { replicas, selector: { matchLabels: selector }, template: { metadata: { labels: selector }, spec: podBody('x', '900m', [], { team: 'rank' }).spec ?? { containers: [] } } },
  };
}

/** The Deployment's pods not being deleted, once there are `count` of them (all in `phase` when given). */
async function rankedPods(core: k8s.CoreV1Api, count: number, phase?: string): Promise<k8s.V1Pod[]> {
  return waitFor(`${String(count)} ranked pods${phase === undefined ? '' : ` ${phase}`}`, async () => {
    const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=ranked' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    return pods.length === count && pods.every((p) => phase === undefined || p.status?.phase === phase) ? pods : undefined;
  }, { timeoutMs: 90_000 });
}

const isReady = (n: k8s.V1Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

void t.test('kube-scheduler places pods through the extender on real nodes and on materialised virtual nodes', async (t) => {
  const port = await freePort();
  // Over HTTPS, as a production install should be: kube-scheduler then talks HTTP/2 to the extender.
  const certs = await issueLocalCertificates();
  const caFile = join(await mkdtemp(join(tmpdir(), 'nodesmith-extender-ca-')), 'ca.crt');
  await writeFile(caFile, certs.ca.cert);
  const { core, kc, target } = await withStack(t, {
    scheduler: { extenders: [{ urlPrefix: `https://127.0.0.1:${port}`, filterVerb: 'filter', prioritizeVerb: 'prioritize', bindVerb: 'bind', weight: 5, nodeCacheCapable: true, httpTimeout: '60s', ignorable: false, enableHTTPS: true, tlsConfig: { caFile } }] },
  });
  // The standalone extender's model: node and pod watches, as `nodesmith extender` builds it.
  const model = new ClusterState();
  const informers = startClusterInformers(target, model, { kinds: 'extender', onError: () => undefined });
  t.teardown(() => informers.stop());
  const materializer = new NodeCreatingMaterializer(core);
  const extender = await serve({
    view: model, materializer, binder: KubePodBinder.fromKubeConfig(target), registry: new Registry(), host: '127.0.0.1', port, logger: false,
    https: { cert: certs.serving.cert, key: certs.serving.key },
  });
  t.teardown(() => extender.close());
  await waitFor('the extender view to sync', () => Promise.resolve(extender.view.isSynced ? true : undefined));

  await t.test('a pod that fits a real node is bound there through the extender', async (t) => {
    await core.createNode({ body: nodeBody('kwok-small', '2') });
    await waitFor('kwok-small Ready in the API and in the extender view', async () =>
      isReady(await core.readNode({ name: 'kwok-small' })) && extender.view.node('kwok-small') !== undefined ? true : undefined);
    await core.createNamespacedPod({ namespace: 'default', body: podBody('fits-real', '500m') });
    const pod = await waitFor('fits-real to be bound', async () => {
      const p = await core.readNamespacedPod({ name: 'fits-real', namespace: 'default' });
      return p.spec?.nodeName ? p : undefined;
    });
    t.equal(pod.spec?.nodeName, 'kwok-small');
    const metrics = (await extender.app.inject('/metrics')).body;
    t.match(metrics, /nodesmith_extender_requests_total\{verb="filter",outcome="ok"\} [1-9]/, 'kube-scheduler called filter');
    t.match(metrics, /nodesmith_extender_requests_total\{verb="bind",outcome="ok"\} 1/, 'the extender made the binding');
  });

  await t.test('a pod that fits only a virtual node is bound to the real node it became, after one launch', async (t) => {
    await core.createNamespacedPod({ namespace: 'default', body: podBody('needs-launch', '4', launchTolerations) });
    await waitUnschedulable(core, 'needs-launch');
    await publishVirtualNode(core, model, { name: 'launchable-default-e2e1', assignedPods: ['default/needs-launch'] });
    t.equal(await waitBound(core, 'needs-launch'), 'ip-10-0-0-1.ec2.internal', 'bound to the materialised node, not the virtual one');
    t.same(materializer.calls, ['launchable-default-e2e1'], 'one launch');
    const running = await waitFor('kwok to run needs-launch', async () => {
      const p = await core.readNamespacedPod({ name: 'needs-launch', namespace: 'default' });
      return p.status?.phase === 'Running' ? p : undefined;
    });
    t.equal(running.status?.phase, 'Running');
  });

  await t.test('pods binding to one virtual node at the same time share a single launch', async (t) => {
    materializer.launchDelayMs = 3_000;
    const names = ['batch-0', 'batch-1', 'batch-2'];
    // Only the planned node will carry team=batch, so no existing node takes these pods.
    for (const name of names) await core.createNamespacedPod({ namespace: 'default', body: podBody(name, '2', launchTolerations, { team: 'batch' }) });
    for (const name of names) await waitUnschedulable(core, name);
    await publishVirtualNode(core, model, { name: 'launchable-default-e2e2', assignedPods: names.map((name) => `default/${name}`), labels: { team: 'batch' } });
    const nodes = await Promise.all(names.map((name) => waitBound(core, name)));
    t.same(nodes, ['ip-10-0-0-2.ec2.internal', 'ip-10-0-0-2.ec2.internal', 'ip-10-0-0-2.ec2.internal'], 'all three on the one new node');
    t.same(materializer.calls, ['launchable-default-e2e1', 'launchable-default-e2e2'], 'one launch for the three pods');
    // Bind latency as kube-scheduler waits for it (the 3 s stand-in launch included), for sizing httpTimeout.
    const metrics = (await extender.app.inject('/metrics')).body;
    const sum = /nodesmith_extender_request_duration_seconds_sum\{verb="bind",outcome="ok"\} ([\d.e-]+)/.exec(metrics)?.[1];
    const count = /nodesmith_extender_request_duration_seconds_count\{verb="bind",outcome="ok"\} (\d+)/.exec(metrics)?.[1];
    t.comment(`bind: ${count ?? '?'} calls, ${sum ?? '?'} s in total (launch stand-in delay ${materializer.launchDelayMs} ms)`);
  });

  await t.test("a Deployment's scale-in deletes the pods of whole nodes: the ones the binds ranked lowest", async (t) => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const [top = '', ...lower] = ['rank-a', 'rank-b', 'rank-c'].sort((a, b) => scaleInRank(b) - scaleInRank(a));
    const nodes = [top, ...lower];
    for (const name of nodes) await core.createNode({ body: nodeBody(name, '2', { team: 'rank' }) });
    await waitFor('the three rank nodes Ready in the extender view', async () =>
      (await Promise.all(nodes.map((name) => core.readNode({ name })))).every(isReady) && nodes.every((name) => extender.view.node(name) !== undefined) ? true : undefined);
    // The top-ranked node is filled last, so its pods are the newest: without the ranks, the ReplicaSet (every node
    // holding two of its pods) deletes the newest first and would empty exactly that node.
    await core.patchNode({ name: top, body: { spec: { unschedulable: true } } }, mergePatch);
    await apps.createNamespacedDeployment({ namespace: 'default', body: rankedDeployment(4) });
    await rankedPods(core, 4, 'Running');
    await core.patchNode({ name: top, body: { spec: { unschedulable: false } } }, mergePatch);
    await apps.patchNamespacedDeploymentScale({ namespace: 'default', name: 'ranked', body: { spec: { replicas: 6 } } }, mergePatch);
    const running = await rankedPods(core, 6, 'Running');
    t.same(running.filter((p) => p.spec?.nodeName === top).length, 2, `the two newest pods are on ${top}`);
    for (const pod of running) {
      const nodeName = pod.spec?.nodeName ?? '';
      t.equal(pod.metadata?.annotations?.[podDeletionCostKey], String(scaleInRank(nodeName)), `${pod.metadata?.name ?? ''} on ${nodeName} carries its node's rank`);
    }
    await apps.patchNamespacedDeploymentScale({ namespace: 'default', name: 'ranked', body: { spec: { replicas: 2 } } }, mergePatch);
    const left = await rankedPods(core, 2);
    t.same(left.map((p) => p.spec?.nodeName), [top, top], `kube-controller-manager kept the two pods on ${top}, the top-ranked node, and emptied the other two`);
    await apps.deleteNamespacedDeployment({ namespace: 'default', name: 'ranked' });
  });

  await t.test('the kube binder treats a repeated bind as success and refuses a stale UID or another node', async (t) => {
    const binder = KubePodBinder.fromKubeConfig(target);
    const bound = await core.readNamespacedPod({ name: 'fits-real', namespace: 'default' });
    const uid = bound.metadata?.uid ?? '';
    await binder.bind({ namespace: 'default', name: 'fits-real', uid, nodeName: 'kwok-small' });
    t.pass('binding again to the same node resolved');
    await t.rejects(binder.bind({ namespace: 'default', name: 'fits-real', uid, nodeName: 'ip-10-0-0-1.ec2.internal' }), /creating binding of pod default\/fits-real to node ip-10-0-0-1.ec2.internal: 409/);
    await core.createNamespacedPod({ namespace: 'default', body: podBody('nowhere', '100m', [], { team: 'none' }) });
    await t.rejects(binder.bind({ namespace: 'default', name: 'nowhere', uid: 'not-its-uid', nodeName: 'kwok-small' }), /UID/);
  });
});
