import { readFile, writeFile } from 'node:fs/promises';
import t from 'tap';
import { helmTemplate } from './helm.js';
import { goldenValueSets } from './value-sets.js';

const record = process.env['NODESMITH_RECORD_FIXTURES'] === '1';
const golden = (name: string): URL => new URL(`../fixtures/helm/${name}.yaml`, import.meta.url);

/** Certificates Helm generates differ on every render; everything else must match byte for byte. */
export function maskGeneratedCertificates(rendered: string): string {
  return rendered
    .replace(/^(\s+(?:ca\.crt|tls\.crt|tls\.key): )\S+$/gm, '$1<generated>')
    .replace(/^(\s+caBundle: )"LS0t\S+"$/gm, '$1"<generated CA>"');
}

for (const [name, set] of Object.entries(goldenValueSets)) {
  void t.test(`helm template with the "${name}" values renders test/fixtures/helm/${name}.yaml (NODESMITH_RECORD_FIXTURES=1 re-records)`, async (t) => {
    const rendered = maskGeneratedCertificates(await helmTemplate({ set, release: name === 'every-setting' ? 'ns-prod' : 'nodesmith', namespace: name === 'every-setting' ? 'platform' : 'nodesmith' }));
    if (record) await writeFile(golden(name), rendered);
    t.equal(rendered, await readFile(golden(name), 'utf8').catch(() => '<no golden file>'), 'the rendering matches the golden file');
  });
}
