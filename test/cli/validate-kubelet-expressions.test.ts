import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CommandIo } from '../../cli/command.js';
import { validateCommand } from '../../cli/validate-command.js';

async function validateClass(kubelet: string): Promise<{ code: number; out: string }> {
  const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-kubelet-')), 'class.yaml');
  await writeFile(file, [
    'apiVersion: karpenter.k8s.aws/v1', 'kind: EC2NodeClass', 'metadata: { name: sized }', 'spec:', '  role: KarpenterNodeRole',
    '  amiSelectorTerms: [{ alias: al2023@latest }]', '  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: prod } }]',
    '  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: prod } }]', `  kubelet: ${kubelet}`, '',
  ].join('\n'));
  let out = '';
  const io: CommandIo = { stdout: (s) => { out += s; }, stderr: (s) => { out += s; }, interrupted: new Promise(() => undefined) };
  return { code: await validateCommand.run(['-f', file], io), out };
}

void t.test('nodesmith validate accepts the expressions of Karpenter #9326', async (t) => {
  const { code, out } = await validateClass(`{ maxPods: "((default_enis - 1) * (ips_per_eni - 1)) + 2", kubeReserved: { cpu: "max(60, vcpus * 30)", memory: "11 * max_pods + 255" } }`);
  t.equal(code, 0, out);
});

void t.test('nodesmith validate refuses an expression that does not compile, naming the field and the reason', async (t) => {
  const { code, out } = await validateClass(`{ maxPods: "((default_enis - 1) *", systemReserved: { memory: "vcpus * 2.5" } }`);
  t.equal(code, 1);
  t.match(out, /EC2NodeClass\/sized: spec\.kubelet\.maxPods: not a valid CEL expression: Unexpected token: EOF/);
  t.match(out, /spec\.kubelet\.systemReserved\.memory: neither a quantity nor a valid CEL expression: no such overload: int \* double/);
});
