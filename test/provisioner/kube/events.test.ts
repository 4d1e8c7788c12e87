import t from 'tap';
import { Registry } from 'prom-client';
import { silentLogger } from '../../../provisioner/runtime/controller-runner.js';
import { countedEventRecorder, KubeEventRecorder } from '../../../provisioner/kube/events.js';
import type { ResourceRef } from '../../../provisioner/kube/kube-rest.js';

/** An API whose creates stay unanswered until released, counting how many are on the wire at once. */
function slowApi(): { create: (ref: ResourceRef, body: unknown) => Promise<unknown>; onWire: () => number; most: () => number; written: () => number; releaseAll: () => void } {
  const waiting: (() => void)[] = [];
  let onWire = 0;
  let most = 0;
  let written = 0;
  return {
    create: () => {
      onWire += 1;
      most = Math.max(most, onWire);
      return new Promise((resolve) => waiting.push(() => { onWire -= 1; written += 1; resolve({}); }));
    },
    onWire: () => onWire,
    most: () => most,
    written: () => written,
    releaseAll: () => { for (const release of waiting.splice(0)) release(); },
  };
}

const clock = { now: () => 0, sleep: () => Promise.resolve() };
const pod = (i: number): { kind: string; name: string; namespace: string } => ({ kind: 'Pod', name: `pod-${String(i)}`, namespace: 'default' });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// These tests write many Nominated Events at one instant: without Karpenter's rate limit, so all of them reach the queue.
const unlimited = { rateLimits: {} };

void t.test('a burst of events puts only a few on the wire at once, and the rest follow as they finish', async (t) => {
  const api = slowApi();
  const recorder = new KubeEventRecorder(api, { clock, component: 'nodesmith', onError: () => undefined, maxInFlight: 4, ...unlimited });
  for (let i = 0; i < 1_000; i++) recorder.record(pod(i), 'Normal', 'Nominated', 'planned on virtual node v');
  t.equal(api.onWire(), 4, 'four writes on the wire, not a thousand');
  t.equal(recorder.backlog, 996, 'the others wait their turn');
  while (api.written() < 1_000) {
    api.releaseAll();
    await settle();
  }
  t.equal(api.most(), 4, 'never more than four at a time');
  t.equal(recorder.backlog, 0, 'every event was written in the end');
});

void t.test('past the backlog the newest events are dropped and counted, and a failed write frees its turn', async (t) => {
  let dropped = 0;
  let failures = 0;
  let calls = 0;
  const api = { create: (): Promise<unknown> => { calls += 1; return Promise.reject(new Error('the API server said no')); } };
  const recorder = new KubeEventRecorder(api, { clock, component: 'nodesmith', onError: () => { failures += 1; }, maxInFlight: 1, maxBacklog: 10, onDropped: () => { dropped += 1; }, ...unlimited });
  for (let i = 0; i < 25; i++) recorder.record(pod(i), 'Normal', 'Nominated', 'planned');
  t.equal(dropped, 14, 'one on the wire, ten waiting, fourteen dropped');
  for (let i = 0; i < 20 && calls < 11; i++) await settle();
  t.equal(calls, 11, 'each failed write let the next one go');
  t.equal(failures, 11, 'and each failure was reported');
});

void t.test('lost events are counted on /metrics by reason: a refused write, and one over the backlog', async (t) => {
  const registry = new Registry();
  const refusing = { create: (): Promise<unknown> => Promise.reject(new Error('etcdserver: request timed out')) };
  const recorder = countedEventRecorder(refusing, { clock, registry, log: silentLogger });
  recorder.record(pod(1), 'Normal', 'Nominated', 'planned');
  await settle();
  const hanging = { create: (): Promise<unknown> => new Promise(() => undefined) };
  const full = countedEventRecorder(hanging, { clock, registry, log: silentLogger });
  // 4 on the wire and 2,000 waiting: the next one is over the backlog.
  for (let i = 0; i < 2_005; i++) full.record(pod(i), 'Warning', 'FailedProvisioning', 'no NodePool fits');
  // Ten Nominated at once pass Karpenter's bucket of ten; two more do not.
  for (let i = 0; i < 11; i++) countedEventRecorder({ create: () => Promise.resolve({}) }, { clock, registry, log: silentLogger }).record(pod(i), 'Normal', 'Nominated', 'planned');
  const limited = countedEventRecorder({ create: () => Promise.resolve({}) }, { clock, registry, log: silentLogger });
  for (let i = 0; i < 12; i++) limited.record(pod(i), 'Normal', 'Nominated', 'planned');
  const text = await registry.metrics();
  t.match(text, /nodesmith_events_dropped_total\{reason="write_failed"\} 1\n/);
  t.match(text, /nodesmith_events_dropped_total\{reason="backlog"\} 1\n/);
  t.match(text, /nodesmith_events_dropped_total\{reason="rate_limited"\} 2\n/);
});

void t.test('Nominated Events are limited as Karpenter limits them: ten at once, then five a second; other reasons are not', async (t) => {
  let now = 0;
  const written: { reason: string }[] = [];
  const api = { create: (_ref: ResourceRef, body: unknown): Promise<unknown> => { written.push(body as { reason: string }); return Promise.resolve({}); } };
  const recorder = new KubeEventRecorder(api, { clock: { now: () => now, sleep: () => Promise.resolve() }, component: 'nodesmith', onError: () => undefined });
  for (let i = 0; i < 1_000; i++) recorder.record(pod(i), 'Normal', 'Nominated', 'planned on virtual node v');
  for (let i = 0; i < 50; i++) recorder.record(pod(i), 'Warning', 'FailedProvisioning', 'no NodePool fits');
  while (recorder.backlog > 0) await settle();
  t.equal(written.filter((e) => e.reason === 'Nominated').length, 10, 'a burst of a thousand nominations writes ten');
  t.equal(written.filter((e) => e.reason === 'FailedProvisioning').length, 50, 'every pod nothing can serve still gets its Event');
  now = 2_000;
  for (let i = 1_000; i < 1_100; i++) recorder.record(pod(i), 'Normal', 'Nominated', 'planned on virtual node w');
  while (recorder.backlog > 0) await settle();
  t.equal(written.filter((e) => e.reason === 'Nominated').length, 20, 'two seconds later, ten more (five a second)');
  now = 2_000;
  recorder.record(pod(500), 'Normal', 'Nominated', 'planned on virtual node v');
  now = 60_000;
  recorder.record(pod(500), 'Normal', 'Nominated', 'planned on virtual node v');
  while (recorder.backlog > 0) await settle();
  t.equal(written.filter((e) => e.reason === 'Nominated').length, 21, 'a pod whose nomination was dropped gets it once a token is free');
});

void t.test('a repeat within a minute is dropped, and only the last minute\'s events are remembered', async (t) => {
  let now = 0;
  const written: unknown[] = [];
  const api = { create: (_ref: ResourceRef, body: unknown): Promise<unknown> => { written.push(body); return Promise.resolve({}); } };
  const recorder = new KubeEventRecorder(api, { clock: { now: () => now, sleep: () => Promise.resolve() }, component: 'nodesmith', onError: () => undefined, ...unlimited });
  recorder.record(pod(0), 'Normal', 'Nominated', 'planned on virtual node v');
  now = 30_000;
  recorder.record(pod(0), 'Normal', 'Nominated', 'planned on virtual node v');
  t.equal(written.length, 1, 'the repeat 30 s later is dropped');
  // A steady stream of distinct events for ten minutes, one a second.
  for (let i = 1; i <= 600; i++) {
    now = 30_000 + i * 1_000;
    recorder.record(pod(i), 'Normal', 'Nominated', 'planned on virtual node v');
  }
  t.ok(recorder.remembered <= 61, `about a minute of events remembered, not ten (${String(recorder.remembered)})`);
  recorder.record(pod(0), 'Normal', 'Nominated', 'planned on virtual node v');
  while (recorder.backlog > 0) await settle();
  t.equal(written.length, 602, 'an event from ten minutes ago is written again');
});
