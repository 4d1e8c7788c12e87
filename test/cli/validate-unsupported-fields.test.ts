import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import type { CommandIo } from '../../cli/command.js';
import { planCommand } from '../../cli/plan-command.js';
import { validateCommand } from '../../cli/validate-command.js';
import { unsupportedFields } from '../../domain/api/unsupported-fields.js';
import { honouredSamples, unsupportedSamples } from '../domain/api/unsupported-samples.js';
import { nodePool } from '../webhooks/review-fixture.js';

async function validate(file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CommandIo = { stdout: (s) => { out += s; }, stderr: () => undefined, interrupted: new Promise(() => undefined) };
  return { code: await validateCommand.run(['-f', file], io), out };
}

for (const sample of unsupportedSamples) {
  void t.test(`nodesmith validate refuses ${sample.path}, naming the field and saying it is not supported yet`, async (t) => {
    const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-unsupported-')), 'manifest.yaml');
    await writeFile(file, stringify(sample.manifest));
    const { code, out } = await validate(file);
    t.equal(code, 1);
    const message = unsupportedFields.find((f) => f.path === sample.field)?.message ?? '<no entry>';
    t.ok(out.includes(`${file}: ${sample.manifest.kind}/${sample.manifest.metadata.name}: ${sample.path}: ${message} (rule not-supported-yet`), out);
  });
}

for (const sample of honouredSamples) {
  void t.test(`nodesmith validate accepts ${sample.manifest.metadata.name}'s ${sample.path}, once refused as not supported yet`, async (t) => {
    const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-honoured-')), 'manifest.yaml');
    await writeFile(file, stringify(sample.manifest));
    const { code, out } = await validate(file);
    t.equal(code, 0, out);
  });
}

void t.test('nodesmith plan refuses a static NodePool as admission would with StaticCapacity off (its default), naming the gate', async (t) => {
  const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-unsupported-')), 'static.yaml');
  await writeFile(file, stringify(nodePool({ replicas: 3, limits: { nodes: '5' } }, 'static')));
  let err = '';
  const io: CommandIo = { stdout: () => undefined, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) };
  t.equal(await planCommand.run(['-f', file], io), 1);
  t.match(err, `${file}: NodePool/static: spec.replicas: static NodePools need Karpenter's StaticCapacity feature gate`);
});
