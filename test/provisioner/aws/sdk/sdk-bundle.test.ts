import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import * as facade from '../../../../provisioner/aws/sdk/sdk.js';

const dir = mkdtempSync(join(tmpdir(), 'nodesmith-sdk-bundle-'));
t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
// .mjs: the temporary directory has no package.json saying "type": "module".
const outfile = join(dir, 'sdk.mjs');
execFileSync(process.execPath, ['build/bundles.mjs', 'sdk', outfile], { cwd: new URL('../../../..', import.meta.url) });
const bundle = (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;

void t.test('the bundle exports every value of the facade, and nothing else', (t) => {
  t.same(Object.keys(bundle).sort(), Object.keys(facade).sort());
  t.end();
});

void t.test('a command from the bundle serialises a request the way the package does', async (t) => {
  const Client = bundle['EC2Client'] as typeof facade.EC2Client;
  const Command = bundle['DescribeInstancesCommand'] as typeof facade.DescribeInstancesCommand;
  const requests: { body: string; target: string }[] = [];
  const client = new Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    endpoint: 'http://127.0.0.1:1',
    maxAttempts: 1,
  });
  // Stop each request at the wire: what matters is what the bundled serializer produced.
  client.middlewareStack.add(() => (args) => {
    const request = args.request as { body?: unknown; hostname?: string };
    requests.push({ body: String(request.body), target: request.hostname ?? '' });
    return Promise.reject(Object.assign(new Error('stopped before sending'), { name: 'Stopped' }));
  }, { step: 'finalizeRequest', name: 'capture' });
  await t.rejects(client.send(new Command({ InstanceIds: ['i-0123'] })), { name: 'Stopped' });
  t.match(requests[0]?.body, /Action=DescribeInstances/);
  t.match(requests[0]?.body, /InstanceId\.1=i-0123/);
  t.equal(requests[0]?.target, '127.0.0.1');
});

void t.test('the bundle holds only what the facade names, not the four services whole', (t) => {
  const size = statSync(outfile).size;
  // client-ec2's own bundled entry (dist-cjs/index.js) alone is about 2 MB; ours carries four services.
  t.ok(size < 1_500_000, `bundle is ${String(size)} bytes`);
  t.end();
});
