// `npm run soak -- --minutes N --seed S [--compiled] [--faults-between-restarts N]`: nodesmith on the real stack (kube-apiserver, kube-scheduler,
// kwok, moto) under seeded churn and faults, its invariants checked every few seconds; exits 1 on any violation.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startProductStack } from '../e2e/product-stack.js';
import { samplesCsv } from './process-sampler.js';
import { Soak } from './soak.js';
import { formatReport, soakFailed } from './soak-report.js';
import { soakStackOptions } from './soak-setup.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string', default: '1' }, compiled: { type: 'boolean', default: false }, 'faults-between-restarts': { type: 'string', default: '0' } } });
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const faultsBetweenRestarts = Number(values['faults-between-restarts']);
if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(seed) || !Number.isInteger(faultsBetweenRestarts) || faultsBetweenRestarts < 0) {
  process.stderr.write(`--minutes must be a positive number, --seed an integer and --faults-between-restarts a whole number (got ${values.minutes}, ${values.seed}, ${values['faults-between-restarts']})\n`);
  process.exit(2);
}
const product = await startProductStack(soakStackOptions(values.compiled));
try {
  const report = await new Soak(product, { minutes, seed, faultsBetweenRestarts, write: (text) => process.stdout.write(text) }).run();
  process.stdout.write(formatReport(report));
  const csv = join(product.stack.dir, 'soak-samples.csv');
  writeFileSync(csv, samplesCsv(report.samples));
  process.stdout.write(`nodesmith's readings: ${csv}\n`);
  if (soakFailed(report)) {
    process.stdout.write(`logs (${product.stack.dir}):\n${product.logTails()}\n`);
    process.exitCode = 1;
  }
} finally {
  await product.stop();
}
