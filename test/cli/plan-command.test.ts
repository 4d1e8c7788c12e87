import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { planCommand } from '../../cli/plan-command.js';
import type { PlanReport } from '../../cli/plan-output.js';

const fixtures = new URL('./fixtures/plan/', import.meta.url).pathname;

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await planCommand.run(argv, { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; }, interrupted: new Promise(() => undefined) });
  return { code, stdout, stderr };
}

void t.test('plan --output json reports claims, unschedulable pods and totals', async (t) => {
  const { code, stdout } = await run(['-f', fixtures, '--output', 'json']);
  t.equal(code, 0);
  const report = JSON.parse(stdout) as PlanReport;
  const pods = report.nodeClaims.flatMap((c) => c.pods).sort();
  t.same(pods, ['shop/arm-only-0', 'shop/web-0', 'shop/web-1', 'shop/web-2', 'shop/web-3', 'shop/web-4', 'shop/web-5']);
  for (const claim of report.nodeClaims) {
    t.equal(claim.nodePool, 'default');
    t.ok(claim.instanceTypes.length > 0, `${claim.name} has options`);
    t.match(claim.zone, /^us-east-1[abc]$/, 'zone spread fixes the zone');
    t.ok(claim.pricePerHour > 0);
  }
  t.equal(report.totals.nodes, report.nodeClaims.length);
  t.ok(report.totals.cpuUtilization > 0 && report.totals.cpuUtilization <= 1);
  t.ok(report.totals.memoryUtilization > 0 && report.totals.memoryUtilization <= 1);
  t.same(report.unschedulable, []);
  t.same(report.existing, []);
});

void t.test('plan prints a readable table by default', async (t) => {
  const { code, stdout } = await run(['-f', fixtures]);
  t.equal(code, 0);
  t.match(stdout, /NODECLAIM\s+NODEPOOL\s+INSTANCE TYPES/);
  t.match(stdout, /Total: \d+ new node\(s\), \$[\d.]+\/hour/);
});

void t.test('plan explains pods that fit nothing and places pods on given nodes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-'));
  writeFileSync(join(dir, 'all.yaml'), [
    'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: small }\nspec:\n  template:\n    spec:\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }\n      requirements: [{ key: kubernetes.io/arch, operator: In, values: [arm64] }]',
    'apiVersion: v1\nkind: Node\nmetadata: { name: node-a, labels: { kubernetes.io/arch: amd64 } }\nstatus: { allocatable: { cpu: "2", memory: 4Gi, pods: "10" } }',
    'apiVersion: v1\nkind: Pod\nmetadata: { name: fits-node, namespace: ns }\nspec: { containers: [{ name: c, resources: { requests: { cpu: 500m } } }] }',
    'apiVersion: v1\nkind: Pod\nmetadata: { name: too-big, namespace: ns }\nspec: { nodeSelector: { kubernetes.io/arch: arm64 }, containers: [{ name: c, resources: { requests: { memory: 9000Gi } } }] }',
  ].join('\n---\n'));
  const { code, stdout } = await run(['-f', dir, '-o', 'json']);
  t.equal(code, 0);
  const report = JSON.parse(stdout) as PlanReport;
  t.same(report.existing, [{ node: 'node-a', pods: ['ns/fits-node'] }]);
  t.equal(report.unschedulable[0]?.pod, 'ns/too-big');
  t.match(report.unschedulable[0]?.reason, /0\/1 nodes fit: 1 too little memory; nodepool small: 0\/\d+ instance types: \d+ excluded by NodePool requirement kubernetes\.io\/arch, \d+ too little memory/);
});

void t.test("each NodePool is planned with its own EC2NodeClass's kubelet and root volume", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-'));
  const nodeClass = (name: string, extra: string): string => `apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: { name: ${name} }\nspec:\n  role: KarpenterNodeRole\n  amiSelectorTerms: [{ alias: al2023@latest }]\n  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]\n  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]\n${extra}`;
  const nodePool = (name: string): string => `apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: ${name} }\nspec:\n  template:\n    spec:\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: ${name} }\n      requirements: [{ key: kubernetes.io/arch, operator: In, values: [amd64] }]`;
  const pod = (name: string, pool: string, requests: string): string => `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: ns }\nspec: { nodeSelector: { karpenter.sh/nodepool: ${pool} }, containers: [{ name: c, resources: { requests: ${requests} } }] }`;
  writeFileSync(join(dir, 'all.yaml'), [
    nodeClass('dense', '  kubelet: { maxPods: 20 }'), nodePool('dense'),
    nodeClass('roomy', '  blockDeviceMappings: [{ deviceName: /dev/xvda, rootVolume: true, ebs: { volumeSize: 100Gi } }]'), nodePool('roomy'),
    ...Array.from({ length: 45 }, (_, i) => pod(`tiny-${String(i)}`, 'dense', '{ cpu: 10m, memory: 16Mi }')),
    pod('scratch', 'roomy', '{ cpu: 500m, ephemeral-storage: 50Gi }'),
  ].join('\n---\n'));
  const { code, stdout, stderr } = await run(['-f', dir, '-o', 'json']);
  t.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as PlanReport;
  const dense = report.nodeClaims.filter((c) => c.nodePool === 'dense');
  t.equal(dense.flatMap((c) => c.pods).length, 45);
  t.ok(dense.length >= 3 && dense.every((c) => c.pods.length <= 20), `no node holds more than 20 pods: ${dense.map((c) => c.pods.length).join(', ')}`);
  t.same(report.nodeClaims.filter((c) => c.nodePool === 'roomy').map((c) => c.pods), [['ns/scratch']], 'a 50Gi pod fits the 100Gi root volume');
  t.same(report.unschedulable, []);
});

void t.test('bad input gives a clear error and a non-zero exit', async (t) => {
  const missing = await run(['-f', '/no/such/dir']);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /reading \/no\/such\/dir: no such file or directory/);
  const dir = mkdtempSync(join(tmpdir(), 'plan-bad-'));
  writeFileSync(join(dir, 'broken.yaml'), 'kind: Pod\nmetadata: { name: x\n');
  const broken = await run(['-f', dir]);
  t.equal(broken.code, 1);
  t.match(broken.stderr, /broken\.yaml: document 1, line \d+: Flow map/);
  writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: np }\nspec: { template: { spec: {} } }\n');
  const invalid = await run(['-f', dir]);
  t.equal(invalid.code, 1);
  t.match(invalid.stderr, /broken\.yaml: NodePool\/np: spec\.template\.spec\.requirements: Required value/);
  t.match(invalid.stderr, /plan: refused: 1 invalid object\(s\)/);
  const planned = await run(['-f', dir, '--no-validate']);
  t.equal(planned.code, 1, '--no-validate goes on, to the shape checks the simulation needs');
  t.match(planned.stderr, /NodePool np: spec\.template\.spec\.requirements must be a list of requirements/);
  const usage = await run([]);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /at least one -f/);
  const output = await run(['-f', fixtures, '--output', 'yaml']);
  t.equal(output.code, 2);
  t.match(output.stderr, /--output must be "table" or "json"/);
});

void t.test('plan needs a NodePool', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-nopool-'));
  writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { containers: [{ name: c }] }\n');
  const { code, stderr } = await run(['-f', dir]);
  t.equal(code, 1);
  t.match(stderr, /no NodePool found/);
});

void t.test('the plan says which prices it used', async (t) => {
  const { stdout } = await run(['-f', fixtures]);
  t.match(stdout, /^Prices: on-demand from the embedded catalog \(.+\); spot estimated at 40% of on-demand \(offline; nodesmith run prices spot from DescribeSpotPriceHistory\)$/m);
  const json = JSON.parse((await run(['-f', fixtures, '--output', 'json'])).stdout) as PlanReport;
  t.match(json.prices.spot, /^estimated at 40% of on-demand/);
});

void t.test('the plan says it chose from the embedded catalog and the date of its snapshot', async (t) => {
  const { stdout } = await run(['-f', fixtures]);
  t.match(stdout, /^Instance types: embedded catalog \(snapshot date 2026-08-21; every type in every zone, offline;/m);
  const json = JSON.parse((await run(['-f', fixtures, '--output', 'json'])).stdout) as PlanReport;
  t.match(json.instanceTypes, /^embedded catalog \(snapshot date \d{4}-\d{2}-\d{2};/);
  t.match(json.prices.onDemand, /^embedded catalog \(snapshot date 2026-08-21,/);
});
