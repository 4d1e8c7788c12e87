import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { disruptionCommand } from '../../cli/disruption-command.js';
import type { ConsolidationDryRun } from '../../provisioner/disruption/consolidation-dry-run.js';

// The dry-run fixture (spare and host, two m5.xlarge on-demand nodes, are deleted together for $0.384/h), plus an
// overlay that prices m5.xlarge on-demand at $1/h.
const dir = mkdtempSync(join(tmpdir(), 'disruption-overlay-'));
const dump = join(dir, 'dump.yaml');
writeFileSync(dump, `${readFileSync(new URL('./fixtures/disruption/cluster-dump.yaml', import.meta.url), 'utf8')}
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: { name: list-price }
spec:
  requirements:
    - { key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge] }
    - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
  price: "1"
`);

async function savings(...gates: string[]): Promise<{ report: ConsolidationDryRun; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await disruptionCommand.run(['-f', dump, '-o', 'json', '--now', '2026-01-01T01:00:00Z', ...gates], { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; }, interrupted: new Promise(() => undefined) });
  if (code !== 0) throw new Error(stderr);
  return { report: JSON.parse(stdout) as ConsolidationDryRun, stderr };
}

void t.test('with the NodeOverlay gate on, consolidation counts its savings at the overlaid price', async (t) => {
  const { report } = await savings('--feature-gates', 'NodeOverlay=true');
  t.same(report.commands[0]?.nodes, ['spare', 'host']);
  t.equal(report.commands[0]?.savingsPerHour, 2, 'two nodes at $1/h each');
});

void t.test('with the gate off the overlay is ignored, and the dry run says so', async (t) => {
  const { report, stderr } = await savings();
  t.equal(report.commands[0]?.savingsPerHour, 0.384);
  t.match(stderr, 'ignoring 1 NodeOverlay(s): the NodeOverlay gate is off');
});
