import t from 'tap';
import { controllerPeriods, defaultPeriodsMs } from '../../cli/controller-periods.js';
import { parseRunFlags } from '../../cli/run-flags.js';

const parsed = (...flags: string[]): ReturnType<typeof parseRunFlags> => parseRunFlags(['--cluster-name=c', ...flags], {});

void t.test('--controller-periods is unset by default: every controller keeps the period beside it', (t) => {
  const config = parsed();
  t.equal(Array.isArray(config) ? 'refused' : config.controllerPeriods, undefined);
  t.equal(defaultPeriodsMs['gc.instances'], 120_000, "the orphan-instance GC's own 2 minutes");
  t.equal(defaultPeriodsMs.provisioningrequest, 10_000);
  t.end();
});

void t.test('--controller-periods takes name=duration pairs by the names of cli/controllers.ts', (t) => {
  const config = parsed('--controller-periods=gc.instances=10s, gc.nodeclaims=10s,provisioningrequest=500ms');
  t.same(Array.isArray(config) ? config : config.controllerPeriods, { 'gc.instances': 10_000, 'gc.nodeclaims': 10_000, provisioningrequest: 500 });
  const atDefault = parsed('--controller-periods', 'disruption=10s');
  t.same(Array.isArray(atDefault) ? atDefault : atDefault.controllerPeriods, { disruption: 10_000 }, 'its default, written out, is accepted');
  t.end();
});

void t.test('--controller-periods refuses an unknown name, naming the ones it takes', (t) => {
  const problems: string[] = [];
  t.equal(controllerPeriods('gc.instance=10s', problems), undefined);
  t.equal(problems.length, 1);
  t.match(problems[0], /^--controller-periods: no controller runs on a period as "gc.instance"; the names are those of cli\/controllers.ts: takeover.karpenter, .*gc.instances, /);
  t.end();
});

void t.test('--controller-periods refuses a period that is not above 0, above its default, or not a duration', (t) => {
  t.same(parsed('--controller-periods=gc.instances=0s'), ['--controller-periods gc.instances must be more than 0 and at most its default 2m (a period is shortened, never lengthened: it caps the controller\'s own wait); got "0s"']);
  t.same(parsed('--controller-periods=disruption=11s'), ['--controller-periods disruption must be more than 0 and at most its default 10s (a period is shortened, never lengthened: it caps the controller\'s own wait); got "11s"']);
  t.same(parsed('--controller-periods=disruption=-1s'), ['--controller-periods disruption must be a duration like 500ms, 1s or 2m; got "-1s"']);
  t.same(parsed('--controller-periods=disruption=often'), ['--controller-periods disruption must be a duration like 500ms, 1s or 2m; got "often"']);
  t.end();
});

void t.test('--controller-periods refuses a malformed pair, a name twice, and the periods that have a flag of their own', (t) => {
  t.same(parsed('--controller-periods=disruption'), ['--controller-periods takes name=duration pairs separated by commas; got "disruption"']);
  t.same(parsed('--controller-periods=disruption=1s=2s'), ['--controller-periods takes name=duration pairs separated by commas; got "disruption=1s=2s"']);
  t.same(parsed('--controller-periods=disruption=1s,disruption=2s'), ['--controller-periods names disruption twice']);
  t.same(parsed('--controller-periods=nodeclaim.disruption.drift=10s,pricing.spot=1m'), [
    "--controller-periods: nodeclaim.disruption.drift's period is set with --drift-recheck-interval",
    "--controller-periods: pricing.spot's period is set with --spot-price-refresh",
  ]);
  t.end();
});
