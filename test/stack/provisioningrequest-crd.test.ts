import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// The ProvisioningRequest CRD nodesmith ships is the autoscaler API module's own file, not a copy kept by hand:
// fetch-provisioningrequest-crd.sh downloads the module at the version Kueue requires, and this compares. Needs Go
// and the module proxy (or a warm module cache), so it sits with the stack tests.
const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const crd = 'autoscaling.x-k8s.io_provisioningrequests.yaml';

void t.test('manifests/crds and the chart ship the ProvisioningRequest CRD exactly as the autoscaler API module has it', async (t) => {
  const { stdout } = await run('bash', [join(repo, 'test/stack/fetch-provisioningrequest-crd.sh'), 'dir'], { maxBuffer: 4 * 1024 * 1024 });
  const moduleDir = stdout.trim().split('\n').at(-1) ?? '';
  t.match(moduleDir, /k8s\.io\/autoscaler\/cluster-autoscaler\/apis@v/, 'the module was fetched');
  const upstream = await readFile(join(moduleDir, 'config/crd', crd), 'utf8');
  for (const dir of ['manifests/crds', 'charts/nodesmith/crds']) {
    t.equal(await readFile(join(repo, dir, crd), 'utf8'), upstream, `${dir}/${crd} is the module's file (run test/stack/fetch-provisioningrequest-crd.sh when this fails)`);
  }
});
