import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('--early-planning-schedulers names the schedulers whose untried pods are planned; empty, none are', (t) => {
  const off = parseRunFlags(['--cluster-name=c'], {});
  const on = parseRunFlags(['--cluster-name=c', '--early-planning-schedulers=default-scheduler, nodesmith-scheduler'], {});
  t.equal(Array.isArray(off) ? off.join('; ') : off.earlyPlanningSchedulers, undefined, 'off by default: Karpenter waits for Unschedulable');
  t.same(Array.isArray(on) ? on.join('; ') : on.earlyPlanningSchedulers, ['default-scheduler', 'nodesmith-scheduler']);
  t.end();
});

void t.test('a scheduler name that cannot be one is refused, naming the flag', (t) => {
  const bad = parseRunFlags(['--cluster-name=c', '--early-planning-schedulers=Default Scheduler'], {});
  t.ok(Array.isArray(bad), 'refused');
  t.match(Array.isArray(bad) ? bad.join('; ') : '', /--early-planning-schedulers takes scheduler names .*"Default Scheduler" is not one/);
  t.end();
});
