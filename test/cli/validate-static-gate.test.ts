import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import type { CommandIo } from '../../cli/command.js';
import { validateCommand } from '../../cli/validate-command.js';
import { parseWebhookFlags } from '../../cli/webhooks-command.js';
import { nodePool } from '../webhooks/review-fixture.js';

async function validate(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CommandIo = { stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) };
  return { code: await validateCommand.run(args, io), out, err };
}

async function staticPoolFile(): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'nodesmith-static-')), 'static.yaml');
  await writeFile(file, stringify(nodePool({ replicas: 3, limits: { nodes: '5' } }, 'static')));
  return file;
}

void t.test('nodesmith validate refuses a static NodePool by default, as the webhooks do with StaticCapacity off', async (t) => {
  const file = await staticPoolFile();
  const { code, out } = await validate(['-f', file]);
  t.equal(code, 1);
  t.match(out, 'NodePool/static: spec.replicas: static NodePools need Karpenter\'s StaticCapacity feature gate');
});

void t.test('nodesmith validate --feature-gates StaticCapacity=true accepts it, as the controller running with the gate does', async (t) => {
  const file = await staticPoolFile();
  const { code, out } = await validate(['-f', file, '--feature-gates', 'StaticCapacity=true']);
  t.equal(code, 0, out);
});

void t.test('a --feature-gates the parse refuses is a usage error', async (t) => {
  const { code, err } = await validate(['-f', await staticPoolFile(), '--feature-gates', 'Static=true']);
  t.equal(code, 2);
  t.match(err, /--feature-gates: "Static=true" is not Name=true\|false/);
});

void t.test('nodesmith webhooks takes the controller\'s --feature-gates', (t) => {
  const flags = ['--cert-file', 'c', '--key-file', 'k'];
  const on = parseWebhookFlags([...flags, '--feature-gates', 'StaticCapacity=true,CapacityBuffer=true']);
  const off = parseWebhookFlags(flags);
  t.same(Array.isArray(on) ? on : on.gates, { staticCapacity: true, capacityBuffer: true });
  t.same(Array.isArray(off) ? off : off.gates, { staticCapacity: false, capacityBuffer: false }, 'off by default, as in Karpenter');
  t.end();
});
