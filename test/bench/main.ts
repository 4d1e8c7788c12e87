// `npm run bench [-- --only simulation] [--max-pods 5000] [--extender-verbs filter,bind] [--fixed-pods 5000 --pass-pods 1800,3600,7200 --spot-to-spot off|on|both]` (e2e-burst caps at 1,000 pods on the real stack unless `--burst-pods N`; e2e-consolidation takes `--burst-pods N --keep 0.3 --max-instance-cpu 4 --consolidate-minutes M --no-early-planning`; provisioning-request `--pods 64 --rounds 1`): runs each benchmark module and prints its figures.
// Benchmarks print; they never assert wall-clock time.
import type { Bench } from './bench.js';
import { apiIdleBench } from './api-idle-bench.js';
import { consolidationBench } from './consolidation-bench.js';
import { controllerStartBench } from './controller-start-bench.js';
import { disruptionBench } from './disruption-bench.js';
import { e2eBurstBench } from './e2e-burst-bench.js';
import { e2eConsolidationBench } from './e2e-consolidation-bench.js';
import { extenderBench } from './extender-bench.js';
import { karpenterBench } from './karpenter-bench.js';
import { provisioningRequestBench } from './provisioning-request-bench.js';
import { schedulerThroughputBench } from './scheduler-throughput-bench.js';
import { scaleDownChurnBench } from './scale-down-churn.js';
import { simulationBench } from './simulation-bench.js';
import { startupBench } from './startup-bench.js';
import { vsKarpenterBench } from './vs-karpenter-bench.js';
import { webhooksBench } from './webhooks-bench.js';

/** Every benchmark module, in the order they run. Add new ones here. */
const benches: readonly Bench[] = [startupBench, controllerStartBench, simulationBench, karpenterBench, consolidationBench, scaleDownChurnBench, extenderBench, webhooksBench, schedulerThroughputBench, e2eBurstBench, e2eConsolidationBench, apiIdleBench, disruptionBench, vsKarpenterBench, provisioningRequestBench];

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  // '' for a flag given last without a value, so a switch such as --extender-tls reads as present.
  return i >= 0 ? (process.argv[i + 1] ?? '') : undefined;
}

const only = flag('--only');
const maxPods = Number(flag('--max-pods') ?? 20000);
const selected = benches.filter((b) => only === undefined || only.split(',').includes(b.name));
if (selected.length === 0) {
  process.stderr.write(`unknown benchmark "${only ?? ''}"; known: ${benches.map((b) => b.name).join(', ')}\n`);
  process.exitCode = 2;
}
for (const bench of selected) {
  process.stdout.write(`## ${bench.name}\n`);
  await bench.run({ maxPods, write: (text) => process.stdout.write(text), flag });
}
