import t from 'tap';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('--early-planning-schedulers names the schedulers whose untried pods are planned; the default scheduler by default, none with none', (t) => {
  const schedulers = (args: string[]): unknown => { const parsed = parseRunFlags(['--cluster-name=c', ...args], {}); return Array.isArray(parsed) ? parsed.join('; ') : parsed.earlyPlanningSchedulers; };
  t.same(schedulers([]), ['default-scheduler'], 'on by default, for the kube-scheduler the drop-in configuration makes call the extender');
  t.same(schedulers(['--early-planning-schedulers=default-scheduler, nodesmith-scheduler']), ['default-scheduler', 'nodesmith-scheduler']);
  t.equal(schedulers(['--early-planning-schedulers=none']), undefined, "none turns it off: pods wait for kube-scheduler's Unschedulable, as under Karpenter");
  t.equal(schedulers(['--early-planning-schedulers=']), undefined, 'so does an empty list');
  t.end();
});

void t.test('a scheduler name that cannot be one is refused, naming the flag', (t) => {
  const bad = parseRunFlags(['--cluster-name=c', '--early-planning-schedulers=Default Scheduler'], {});
  t.ok(Array.isArray(bad), 'refused');
  t.match(Array.isArray(bad) ? bad.join('; ') : '', /--early-planning-schedulers takes scheduler names .*"Default Scheduler" is not one/);
  t.end();
});
