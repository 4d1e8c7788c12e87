import t from 'tap';
import { durationText } from '../../cli/duration-flag.js';
import { parseRunFlags } from '../../cli/run-flags.js';
import { runFlagSpec } from '../../cli/run-flag-spec.js';
import { defaultBatchWindows } from '../../provisioner/provisioning/batcher.js';

void t.test("nodesmith run batches by the provisioner's default windows, Karpenter's 1 s idle and 10 s at most, with a step each second", (t) => {
  const parsed = parseRunFlags(['--cluster-name=c'], {});
  t.same(Array.isArray(parsed) ? undefined : parsed.batch, defaultBatchWindows);
  t.same(defaultBatchWindows, { idleMs: 1_000, maxMs: 10_000, stepMs: 1_000 });
  t.equal(runFlagSpec['batch-idle-duration'].default, '1s', '--help shows the default as a user writes it');
  t.equal(runFlagSpec['batch-max-duration'].default, '10s');
  t.equal(runFlagSpec['batch-step-duration'].default, '1s');
  const short = parseRunFlags(['--cluster-name=c', '--batch-idle-duration=500ms', '--batch-max-duration=5s', '--batch-step-duration=0s'], {});
  t.same(Array.isArray(short) ? undefined : short.batch, { idleMs: 500, maxMs: 5_000 }, 'a step of 0s plans only when the batch closes');
  const bad = parseRunFlags(['--cluster-name=c', '--batch-step-duration=soon'], {});
  t.match(bad, [/--batch-step-duration must be a duration/]);
  t.end();
});

void t.test('a duration reads back as the flag text that parses to it', (t) => {
  t.same([500, 1_000, 10_000, 90_000, 120_000, 0].map(durationText), ['500ms', '1s', '10s', '90s', '2m', '0ms']);
  t.end();
});
