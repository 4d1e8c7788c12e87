import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClock } from '../../../domain/clock.js';
import { controllerRuntimeMetrics } from '../../../provisioner/controller-metrics.js';
import { ControllerRunner, type Controller, type ReconcileResult } from '../../../provisioner/runtime/controller-runner.js';

class CountingController implements Controller {
  readonly name: string;
  private readonly clock: FakeClock;
  private readonly requeueAfterMs: number;
  runs: number[] = [];
  fail = false;
  constructor(
    name: string,
    clock: FakeClock,
    requeueAfterMs: number,
  ) {
    this.name = name;
    this.clock = clock;
    this.requeueAfterMs = requeueAfterMs;
  }

  reconcile(): Promise<ReconcileResult> {
    this.runs.push(this.clock.now());
    if (this.fail) return Promise.reject(new Error('boom'));
    return Promise.resolve({ requeueAfterMs: this.requeueAfterMs });
  }
}

void t.test('the runner runs each controller at its own requeue time', async (t) => {
  const clock = new FakeClock(0);
  const fast = new CountingController('test.fast', clock, 1000);
  const slow = new CountingController('test.slow', clock, 3000);
  const runner = new ControllerRunner({ clock, controllers: [fast, slow] });
  let wait = await runner.runDue();
  for (let i = 0; i < 3; i++) {
    clock.step(wait);
    wait = await runner.runDue();
  }
  t.same(fast.runs, [0, 1000, 2000, 3000]);
  t.same(slow.runs, [0, 3000]);
});

void t.test('the runner backs off after a failed pass and reports it', async (t) => {
  const clock = new FakeClock(0);
  const c = new CountingController('test.failing', clock, 1000);
  c.fail = true;
  const errors: string[] = [];
  const runner = new ControllerRunner({ clock, controllers: [c], errorBackoffMs: 7000, onError: (name) => errors.push(name) });
  t.equal(await runner.runDue(), 7000);
  t.same(errors, ['test.failing']);
});

void t.test('the runner runs nothing while its gate is closed, e.g. when not the leader', async (t) => {
  const clock = new FakeClock(0);
  const c = new CountingController('test.gated', clock, 1000);
  let leader = false;
  const runner = new ControllerRunner({ clock, controllers: [c], shouldRun: () => leader, idleMs: 500 });
  t.equal(await runner.runDue(), 500);
  t.same(c.runs, []);
  leader = true;
  await runner.runDue();
  t.same(c.runs, [0]);
});

void t.test('the runner loops on the injected clock until stopped', async (t) => {
  const clock = new FakeClock(0);
  const c = new CountingController('test.loop', clock, 1000);
  const runner = new ControllerRunner({ clock, controllers: [c] });
  const done = runner.run();
  for (let i = 0; i < 3; i++) {
    while (clock.pendingSleepers === 0) await new Promise((resolve) => setImmediate(resolve));
    clock.step(1000);
  }
  while (c.runs.length < 4) await new Promise((resolve) => setImmediate(resolve));
  runner.stop();
  await done;
  t.same(c.runs, [0, 1000, 2000, 3000]);
});

void t.test('wake runs the named controller at once instead of at its requeue time', async (t) => {
  const clock = new FakeClock(0);
  const termination = new CountingController('test.termination', clock, 5000);
  const runner = new ControllerRunner({ clock, controllers: [termination] });
  const done = runner.run();
  while (clock.pendingSleepers === 0) await new Promise((resolve) => setImmediate(resolve));
  clock.step(100);
  runner.wake('test.termination');
  while (termination.runs.length < 2) await new Promise((resolve) => setImmediate(resolve));
  runner.stop();
  await done;
  t.same(termination.runs, [0, 100], 'the second pass ran at the wake, not 5 s after the first');
});

void t.test('a wake during a pass runs the controller again right after it', async (t) => {
  const clock = new FakeClock(0);
  const holder: { runner?: ControllerRunner } = {};
  const runs: number[] = [];
  const termination: Controller = {
    name: 'test.termination',
    reconcile: () => {
      runs.push(clock.now());
      // The wake arrives while this pass is running, so this pass may have missed the news.
      if (runs.length === 1) holder.runner?.wake('test.termination');
      return Promise.resolve({ requeueAfterMs: 5000 });
    },
  };
  const runner = new ControllerRunner({ clock, controllers: [termination] });
  holder.runner = runner;
  t.equal(await runner.runDue(), 0, 'nothing to wait for: the woken controller is due again');
  await runner.runDue();
  t.same(runs, [0, 0]);
  t.equal(await runner.runDue(), 5000, 'without another wake it keeps its requeue time');
});

void t.test("every pass is reported with its duration and result, as controller-runtime's reconcile metrics count it", async (t) => {
  const registry = new Registry();
  const clock = new FakeClock(0);
  const slow: Controller = { name: 'test.slow', reconcile: async () => { await Promise.resolve(); clock.step(250); return { requeueAfterMs: 1000 }; } };
  const failing = new CountingController('test.failing', clock, 1000);
  failing.fail = true;
  const runner = new ControllerRunner({ clock, controllers: [slow, failing], onReconciled: controllerRuntimeMetrics(registry) });
  await runner.runDue();
  const text = await registry.metrics();
  t.match(text, /^controller_runtime_reconcile_total\{controller="test.slow",result="success"\} 1$/m);
  t.match(text, /^controller_runtime_reconcile_total\{controller="test.failing",result="error"\} 1$/m);
  t.match(text, /^controller_runtime_reconcile_errors_total\{controller="test.failing"\} 1$/m);
  t.match(text, /^controller_runtime_reconcile_time_seconds_sum\{controller="test.slow"\} 0.25$/m, 'the pass took 250 ms on the clock');
});
