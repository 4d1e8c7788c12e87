import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CommandIo } from '../../cli/command.js';
import { validateCommand } from '../../cli/validate-command.js';

async function validate(args: readonly string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CommandIo = { stdout: (s) => { out += s; }, stderr: (s) => { out += s; }, interrupted: new Promise(() => undefined) };
  return { code: await validateCommand.run(args, io), out };
}

async function bufferFile(spec: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-buffer-')), 'buffer.yaml');
  await writeFile(file, `apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: { name: warm, namespace: default }\nspec: ${spec}\n`);
  return file;
}

void t.test('nodesmith validate refuses a CapacityBuffer by default, naming the gate, as the webhooks do', async (t) => {
  const { code, out } = await validate(['-f', await bufferFile('{ podTemplateRef: { name: one-cpu }, replicas: 10 }')]);
  t.equal(code, 1);
  t.match(out, /CapacityBuffer\/warm: kind: CapacityBuffers need Karpenter's CapacityBuffer feature gate/);
});

void t.test('nodesmith validate --feature-gates CapacityBuffer=true accepts a buffer and still names a bad field', async (t) => {
  t.equal((await validate(['-f', await bufferFile('{ podTemplateRef: { name: one-cpu }, replicas: 10 }'), '--feature-gates', 'CapacityBuffer=true'])).code, 0);
  const { code, out } = await validate(['-f', await bufferFile('{ scalableRef: { kind: Job, name: batch }, percentage: 10 }'), '--feature-gates', 'CapacityBuffer=true']);
  t.equal(code, 1);
  t.match(out, /spec\.scalableRef\.kind: must be one of Deployment, StatefulSet, ReplicaSet/);
});
