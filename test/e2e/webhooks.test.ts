import { readFile } from 'node:fs/promises';
import t, { type Test } from 'tap';
import { Registry } from 'prom-client';
import { launchableTaint, podAnnotations } from '../../domain/product-keys.js';
import { virtualNodeName } from '../../domain/api/virtual-node-name.js';
import { pointAtUrl, reviewsBy, serveLocalWebhooks, untilLaunchableToleration } from '../webhooks/local-webhook-configurations.js';
import type { Stack } from '../stack/stack.js';
import { waitFor } from '../stack/wait-for.js';
import { withStack } from '../stack/with-stack.js';
import { ec2NodeClassCases } from '../domain/api/ec2nodeclass-cases.js';
import { nodePoolCases, type RuleCase } from '../domain/api/nodepool-cases.js';
import { setIn } from '../domain/api/set-in.js';
import { ec2NodeClass as ec2NodeClassFixture, nodePool as nodePoolFixture } from '../webhooks/review-fixture.js';

const productSa = 'system:serviceaccount:nodesmith:nodesmith';

async function ok(stack: Stack, args: readonly string[], input?: string): Promise<string> {
  const r = await stack.kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

async function startWebhooks(stack: Stack, t: Test, registry: Registry): Promise<string> {
  const running = await serveLocalWebhooks(stack, t, registry, productSa);
  const configs = pointAtUrl(await readFile('manifests/webhooks/webhook-configurations.yaml', 'utf8'), running.url, running.caPem);
  await ok(stack, ['apply', '-f', '-'], configs);
  // From Kubernetes 1.36 the launchable toleration is the API server's own (test/e2e/launchable-toleration.test.ts).
  await ok(stack, ['apply', '-f', 'manifests/webhooks/launchable-toleration-policy.yaml']);
  await untilLaunchableToleration(stack, 'apps');
  return running.url;
}

const nodePool = (name: string, extra: string): string => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: ${name} }
spec:
  template:
    spec:
      requirements: [{ key: kubernetes.io/arch, operator: In, values: [amd64] }]
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
${extra}`;

const pod = (name: string, namespace: string, annotations = ''): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${namespace}
${annotations}
spec:
  containers: [{ name: c, image: registry.k8s.io/pause:3.10 }]
`;

const binding = (podName: string, node: string): string => JSON.stringify({
  apiVersion: 'v1', kind: 'Binding', metadata: { name: podName }, target: { apiVersion: 'v1', kind: 'Node', name: node },
});

/**
 * Every rule case against the API server alone (no webhook registered yet): the CRD schema and its
 * CEL rules must refuse every invalid case except the ones marked webhookOnly, and accept the valid ones.
 */
async function checkCasesWithoutWebhooks(t: Test, stack: Stack): Promise<void> {
  const suites: [string, readonly RuleCase[], (name: string) => object][] = [
    ['NodePool', nodePoolCases, (name) => nodePoolFixture({}, name)],
    ['EC2NodeClass', ec2NodeClassCases, (name) => ec2NodeClassFixture({}, name)],
  ];
  for (const [kind, cases, fixture] of suites) {
    for (const [i, c] of cases.entries()) {
      const object = fixture(`cel-${kind.toLowerCase()}-${i}`);
      for (const [path, value] of c.set) setIn(object, path, value);
      const r = await stack.kubectl(['create', '-f', '-'], JSON.stringify(object));
      const refusedAlone = c.expect !== undefined && c.webhookOnly !== true;
      t.equal(r.code !== 0, refusedAlone, `${kind}: ${c.name}${refusedAlone ? ' (by the API server)' : c.expect ? ' (not by the API server: webhook only)' : ''} ${r.stderr.trim()}`);
    }
  }
}

/** With the webhooks in force, the cases CEL cannot express are refused by our webhook, naming the rule. */
async function checkWebhookOnlyCases(t: Test, stack: Stack): Promise<void> {
  const suites: [string, readonly RuleCase[], (name: string) => object][] = [
    ['NodePool', nodePoolCases, (name) => nodePoolFixture({}, name)],
    ['EC2NodeClass', ec2NodeClassCases, (name) => ec2NodeClassFixture({}, name)],
  ];
  for (const [kind, cases, fixture] of suites) {
    for (const [i, c] of cases.entries()) {
      if (c.webhookOnly !== true || c.expect === undefined) continue;
      const object = fixture(`hook-${kind.toLowerCase()}-${i}`);
      for (const [path, value] of c.set) setIn(object, path, value);
      const r = await stack.kubectl(['create', '-f', '-'], JSON.stringify(object));
      t.ok(r.code !== 0 && r.stderr.includes(`rule ${c.expect.rule}`), `${kind}: ${c.name}: ${r.stderr.trim()}`);
    }
  }
}

void t.test('the real API server serves our CRDs and enforces our webhooks', async (t) => {
  const { stack } = await withStack(t, { controllerManager: false, kwok: false, scheduler: false });
  await ok(stack, ['apply', '--server-side', '-f', 'manifests/crds']);
  // Polled rather than `kubectl wait`: on a CRD the API server has not yet given a status, kubectl wait fails at once
  // (".status.conditions accessor error: <nil>") instead of waiting, and did so in a suite run (2026-11-30).
  const crds = ['crd/nodepools.karpenter.sh', 'crd/nodeclaims.karpenter.sh', 'crd/ec2nodeclasses.karpenter.k8s.aws'];
  await waitFor('our CRDs Established', async () => {
    const r = await stack.kubectl(['get', ...crds, '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Established")].status}{"\\n"}{end}']);
    return r.code === 0 && r.stdout.split('\n').filter((line) => line === 'True').length === crds.length ? true : undefined;
  }, { timeoutMs: 60_000 });
  // The shipped namespace, service accounts and RBAC: the binding test impersonates our service account.
  await ok(stack, ['apply', '-f', 'manifests/base/namespace.yaml']);
  await ok(stack, ['apply', '-f', 'manifests/base']);
  await ok(stack, ['create', 'namespace', 'apps']);
  // No controller-manager here, so nobody creates the default service accounts pods need.
  await ok(stack, ['create', 'serviceaccount', 'default', '-n', 'apps']);
  await ok(stack, ['create', 'serviceaccount', 'default', '-n', 'nodesmith']);
  await t.test('without webhooks, the CRD schema and CEL rules alone refuse every CEL-expressible case', (t) => checkCasesWithoutWebhooks(t, stack));
  const registry = new Registry();
  await startWebhooks(stack, t, registry);

  // Webhook configurations take effect through an informer: retry until the webhook answers.
  const badCron = nodePool('bad-cron', '  disruption:\n    consolidateAfter: 0s\n    budgets: [{ nodes: "1", schedule: "61 * * * *", duration: 1h }]\n');
  const denial = await waitFor('the NodePool webhook to deny', async () => {
    const r = await stack.kubectl(['apply', '-f', '-'], badCron);
    return r.code !== 0 && r.stderr.includes('budget-cron') ? r.stderr : undefined;
  });
  t.match(denial, /spec\.disruption\.budgets\[0\]\.schedule/, 'the denial names the field path');
  t.match(denial, /61 \* \* \* \*/, 'and the bad value');

  await t.test('with the webhooks, every webhook-only case is refused naming its rule', (t) => checkWebhookOnlyCases(t, stack));

  await t.test('a valid NodePool and EC2NodeClass are stored with Karpenter defaults', async (t) => {
    await ok(stack, ['apply', '-f', '-'], nodePool('plain', ''));
    const stored = JSON.parse(await ok(stack, ['get', 'nodepool', 'plain', '-o', 'json'])) as { spec: { disruption: unknown; template: { spec: { expireAfter: string } } } };
    t.same(stored.spec.disruption, { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] });
    t.equal(stored.spec.template.spec.expireAfter, '720h');
    await ok(stack, ['apply', '-f', 'manifests/examples/general-purpose.yaml']);
    const nodeClass = JSON.parse(await ok(stack, ['get', 'ec2nc', 'default', '-o', 'json'])) as { spec: { metadataOptions: unknown } };
    t.same(nodeClass.spec.metadataOptions, { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' });
    const table = await ok(stack, ['get', 'karpenter']);
    t.match(table, /nodepool\.karpenter\.sh\/plain/, 'the karpenter category lists NodePools');
  });

  await t.test('every install manifest is accepted by the API server (server-side dry run)', async (t) => {
    for (const dir of ['manifests/base', 'manifests/webhooks', 'manifests/controller', 'manifests/extender', 'manifests/scheduler/second-scheduler.yaml']) {
      const r = await stack.kubectl(['apply', '--dry-run=server', '-f', dir]);
      t.equal(r.code, 0, `${dir}: ${r.stderr}`);
    }
  });

  await t.test('every example manifest is accepted', async (t) => {
    for (const file of ['spot', 'arm64', 'gpu']) {
      const r = await stack.kubectl(['apply', '-f', `manifests/examples/${file}.yaml`]);
      t.equal(r.code, 0, `${file}.yaml: ${r.stderr}`);
    }
  });

  await t.test('CEL rules in the CRDs are enforced by the API server itself', async (t) => {
    const restricted = nodePool('restricted', '').replace('  template:\n', '  template:\n    metadata: { labels: { karpenter.sh/nodepool: x } }\n');
    const r = await stack.kubectl(['apply', '-f', '-'], restricted);
    t.not(r.code, 0);
    t.match(r.stderr, /karpenter\.sh\/nodepool" is restricted/);
    const nc = await stack.kubectl(['apply', '-f', '-'], 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: { name: both }\nspec:\n  role: r\n  instanceProfile: p\n  amiSelectorTerms: [{ alias: al2023@latest }]\n  subnetSelectorTerms: [{ id: subnet-1 }]\n  securityGroupSelectorTerms: [{ id: sg-1 }]\n');
    t.match(nc.stderr, /exactly one of \['role', 'instanceProfile'\]/);
  });

  await t.test("the controller's own writes skip the Karpenter webhooks (matchConditions), users' do not", async (t) => {
    const cron = nodePool('controller-write', '  disruption:\n    consolidateAfter: 0s\n    budgets: [{ nodes: "1", schedule: "0 0 9 * * *", duration: 1h }]\n');
    const asUser = await stack.kubectl(['apply', '-f', '-'], cron);
    t.match(asUser.stderr, /rule budget-cron/, 'a user is refused by the webhook');
    const asController = await stack.kubectl(['apply', '--as', productSa, '-f', '-'], cron);
    t.equal(asController.code, 0, `the controller is not blocked by the webhook: ${asController.stderr}`);
  });

  await t.test('a static NodePool is stored by the CRD alone but refused by our webhook while the StaticCapacity gate is off', async (t) => {
    const r = await stack.kubectl(['apply', '-f', '-'], nodePool('static', '  replicas: 3\n  limits: { nodes: "5" }\n'));
    t.not(r.code, 0);
    t.match(r.stderr, /spec\.replicas: static NodePools need Karpenter's StaticCapacity feature gate, which is off .*settings\.featureGates/);
    t.equal((await stack.kubectl(['get', 'nodepool', 'static'])).code, 1, 'nothing was stored');
  });

  await t.test('a NodeClaim spec cannot change', async (t) => {
    const claim = (arch: string): string => `apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: { name: claim-1 }\nspec:\n  requirements: [{ key: kubernetes.io/arch, operator: In, values: [${arch}] }]\n  nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }\n`;
    await ok(stack, ['apply', '-f', '-'], claim('amd64'));
    const r = await stack.kubectl(['apply', '-f', '-'], claim('arm64'));
    t.not(r.code, 0);
    t.match(r.stderr, /immutable/);
  });

  await t.test('a new pod gets the launchable toleration unless it opts out', async (t) => {
    await ok(stack, ['apply', '-f', '-'], pod('web', 'apps'));
    const stored = JSON.parse(await ok(stack, ['get', 'pod', 'web', '-n', 'apps', '-o', 'json'])) as { spec: { tolerations?: { key?: string }[] } };
    t.ok(stored.spec.tolerations?.some((x) => x.key === launchableTaint.key), 'toleration added');
    await ok(stack, ['apply', '-f', '-'], pod('shy', 'apps', `  annotations: { ${podAnnotations.skipLaunchableToleration}: "true" }`));
    const shy = JSON.parse(await ok(stack, ['get', 'pod', 'shy', '-n', 'apps', '-o', 'json'])) as { spec: { tolerations?: { key?: string }[] } };
    t.notOk(shy.spec.tolerations?.some((x) => x.key === launchableTaint.key), 'opted-out pod untouched');
    await ok(stack, ['apply', '-f', '-'], pod('system', 'nodesmith'));
    const sys = JSON.parse(await ok(stack, ['get', 'pod', 'system', '-n', 'nodesmith', '-o', 'json'])) as { spec: { tolerations?: { key?: string }[] } };
    t.notOk(sys.spec.tolerations?.some((x) => x.key === launchableTaint.key), 'excluded namespace untouched');
  });

  await t.test('a pod with a bad steering annotation is refused with a clear message', async (t) => {
    const r = await stack.kubectl(['apply', '-f', '-'], pod('cheap', 'apps', `  annotations: { ${podAnnotations.maxPricePerHour}: "-1" }`));
    t.not(r.code, 0);
    t.match(r.stderr, /max-price-per-hour must be a positive decimal/);
  });

  const reviews = (): Promise<number> => reviewsBy(registry, 'webhooks.validate.pod');

  await t.test('a new pod reaches the pod validator only when it carries an annotation of ours or names a virtual node', async (t) => {
    const before = await reviews();
    await ok(stack, ['apply', '-f', '-'], pod('plain', 'apps'));
    t.equal(await reviews(), before, 'nothing of ours on it, nothing to refuse: no round trip inside its create');
    await ok(stack, ['apply', '-f', '-'], pod('steered', 'apps', `  annotations: { ${podAnnotations.capacityTypePreference}: "spot" }`));
    t.equal(await reviews(), before + 1, 'a steering annotation is judged (and this one admitted)');
    const placed = pod('placed', 'apps').replace('spec:\n', `spec:\n  nodeName: ${virtualNodeName('plain-xyz12')}\n`);
    const onVirtual = await stack.kubectl(['apply', '-f', '-'], placed);
    t.not(onVirtual.code, 0, 'a pod created straight onto a virtual node is still judged and refused');
    t.match(onVirtual.stderr, /spec\.nodeName: creating a pod on virtual node "launchable-plain-xyz12" is refused/);
  });

  await t.test('a pod update reaches the pod validator only when it adds or changes annotations', async (t) => {
    const before = await reviews();
    await ok(stack, ['label', 'pod', 'web', '-n', 'apps', 'team=blue']);
    t.equal(await reviews(), before, 'a label changes nothing the validator reads: the API server does not call it (as is Kueue lifting its scheduling gate)');
    const bad = await stack.kubectl(['annotate', 'pod', 'web', '-n', 'apps', `${podAnnotations.maxPricePerHour}=-1`]);
    t.not(bad.code, 0, 'a bad steering annotation added later is refused');
    t.match(bad.stderr, /max-price-per-hour must be a positive decimal/);
    t.ok(await reviews() > before);
  });

  await t.test('only the product service account may bind a pod to a virtual node', async (t) => {
    const node = virtualNodeName('plain-abc12');
    const path = '/api/v1/namespaces/apps/pods/web/binding';
    const refused = await stack.kubectl(['create', '--raw', path, '-f', '-'], binding('web', node));
    t.not(refused.code, 0);
    t.match(refused.stderr, /refused for user/);
    const other = await stack.kubectl(['create', '--raw', '/api/v1/namespaces/apps/pods/shy/binding', '-f', '-'], binding('shy', 'ip-10-0-0-1.ec2.internal'));
    t.equal(other.code, 0, `a binding to an ordinary node is not our business: ${other.stderr}`);
    const allowed = await stack.kubectl(['create', '--raw', path, '--as', productSa, '-f', '-'], binding('web', node));
    t.equal(allowed.code, 0, `the provisioner may bind: ${allowed.stderr}`);
    t.equal((await ok(stack, ['get', 'pod', 'web', '-n', 'apps', '-o', 'jsonpath={.spec.nodeName}'])).trim(), node);
  });
});
