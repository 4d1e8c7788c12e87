import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The committed schema of spec.kubelet is what the generator reads from the pinned k8s.io/kubelet Go module now: a
// stale copy (a hand edit, a version bump without regenerating) would let the CRD and the webhook disagree with the
// kubelet. Needs Go, as the stack does.
void t.test('domain/api/kubelet-configuration.generated.ts is what build/kubelet-schema writes from k8s.io/kubelet', (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'kubelet-schema-')), 'generated.ts');
  execFileSync('node', [fileURLToPathOf('../../build/kubelet-schema.mjs'), out], { encoding: 'utf8' });
  t.equal(readFileSync(out, 'utf8'), readFileSync(fileURLToPathOf('../../domain/api/kubelet-configuration.generated.ts'), 'utf8'));
  t.end();
});

function fileURLToPathOf(relative: string): string {
  return fileURLToPath(new URL(relative, import.meta.url));
}
