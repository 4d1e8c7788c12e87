import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import type { SimulationResult } from '../../../../domain/simulation/simulation-input.js';
import { InProcessSimulator } from '../../../../provisioner/disruption/simulator/simulator.js';
import { WorkerSimulator } from '../../../../provisioner/disruption/simulator/worker-simulator.js';
import { fakeNode, pod, pods, world } from '../../../domain/disruption/consolidation/fixtures.js';

// The image runs the simulation worker from one bundled file (build/bundles.mjs); this builds that bundle.
const dir = mkdtempSync(join(tmpdir(), 'nodesmith-worker-bundle-'));
t.teardown(() => { rmSync(dir, { recursive: true, force: true }); });
// .mjs: the temporary directory has no package.json saying "type": "module".
const outfile = join(dir, 'simulation-worker.mjs');
execFileSync(process.execPath, ['build/bundles.mjs', 'worker', outfile], { cwd: new URL('../../../..', import.meta.url) });

function placements(result: SimulationResult): string[] {
  return [
    ...result.existing.flatMap((e) => e.pods.map((p) => `${p.metadata.name ?? ''} -> ${e.node}`)),
    ...result.nodeClaims.flatMap((c) => c.pods.map((p) => `${p.metadata.name ?? ''} -> new ${c.instanceTypes[0] ?? '?'}`)),
  ].sort();
}

void t.test('the bundled worker answers as the simulation on this thread does', async (t) => {
  const simulator = new WorkerSimulator({ entry: pathToFileURL(outfile) });
  t.teardown(() => simulator.close());
  const small = fakeNode('small', 'm5.large', pods('web', 2, { cpu: '500m', memory: '1Gi' }));
  const roomy = fakeNode('roomy', 'm5.xlarge', [pod('db', { cpu: '1', memory: '2Gi' })]);
  const w = world([small, roomy]);
  for (const candidates of [[small], [roomy], [small, roomy]]) {
    const question = { without: new Set(candidates.map((c) => c.candidate.nodeName)), pods: candidates.flatMap((c) => c.candidate.reschedulablePods) };
    t.same(placements(await simulator.simulate(w, question)), placements(await new InProcessSimulator().simulate(w, question)), candidates.map((c) => c.candidate.nodeName).join('+'));
  }
  t.equal(simulator.sentCounts.questions, 3);
});

void t.test('the bundle is one file of our own code, with no package inside but the CEL evaluator', (t) => {
  const size = statSync(outfile).size;
  t.ok(size < 400_000, `bundle is ${String(size)} bytes`);
  // The simulation sizes each EC2NodeClass's types, and a class's kubelet may hold expressions (aws provider #9326).
  const packages = new Set([...readFileSync(outfile, 'utf8').matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]));
  t.same([...packages], ['@marcbachmann/cel-js']);
  t.end();
});
