import t from 'tap';
import type { ControllerLogger, ReconcileResult } from '../../../provisioner/runtime/controller-runner.js';
import { NextPass, OptionsController } from '../../../provisioner/runtime/options-controller.js';

void t.test('a pass with no deadline runs again after the period', (t) => {
  t.same(new NextPass(1_000, 300_000).result, { requeueAfterMs: 300_000 });
  t.end();
});

void t.test('a deadline still to come is not due and brings the next pass forward to it; the soonest wins', (t) => {
  const next = new NextPass(1_000, 300_000);
  t.equal(next.due(61_000), false);
  t.equal(next.due(31_000), false);
  t.equal(next.due(91_000), false);
  t.same(next.result, { requeueAfterMs: 30_000 });
  t.end();
});

void t.test('a deadline that has come is due and leaves the next pass where it was', (t) => {
  const next = new NextPass(1_000, 300_000);
  t.equal(next.due(1_000), true, 'a deadline of now is due');
  t.equal(next.due(500), true);
  t.same(next.result, { requeueAfterMs: 300_000 });
  t.end();
});

void t.test('before() brings the pass forward even to a moment already gone, which runs it at once', (t) => {
  const next = new NextPass(1_000, 10_000);
  next.before(4_000);
  t.same(next.result, { requeueAfterMs: 3_000 });
  next.before(500);
  t.same(next.result, { requeueAfterMs: 0 }, 'never a negative wait');
  t.end();
});

class Echo extends OptionsController<{ readonly word: string; readonly log?: ControllerLogger }> {
  readonly name = 'test.echo';

  reconcile(): Promise<ReconcileResult> {
    this.log.info({ component: this.name }, this.options.word);
    return Promise.resolve({ requeueAfterMs: 1 });
  }
}

void t.test('a controller reports through the logger in its options, and is silent without one', async (t) => {
  const heard: string[] = [];
  const log: ControllerLogger = { debug: () => undefined, info: (_o, msg) => heard.push(msg), warn: () => undefined, error: () => undefined };
  await new Echo({ word: 'hello', log }).reconcile();
  await new Echo({ word: 'unheard' }).reconcile();
  t.same(heard, ['hello']);
});
