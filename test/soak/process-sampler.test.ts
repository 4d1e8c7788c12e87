import t from 'tap';
import { floorSlopePer10Min, heapUsedMiBIn, longestLife, sampleProcess, samplesCsv, slopePer10Min, type ProcessSample } from './process-sampler.js';

const minute = 60_000;
const life = (pid: number, startMs: number, base: number, perMinute: number): ProcessSample[] =>
  Array.from({ length: 11 }, (_, i) => ({ atMs: startMs + i * minute, pid, rssMiB: base + i * perMinute, fds: 40 }));

void t.test('the slope is per 10 minutes and a restart to a lower level is not a fall', (t) => {
  const samples = [...life(1, 0, 200, 0.5), ...life(2, 11 * minute, 120, 0.5)];
  t.equal(slopePer10Min(samples, (s) => s.rssMiB, 0)?.toFixed(3), '5.000');
  t.end();
});

void t.test('the warm-up of each process is left out', (t) => {
  const warm = life(1, 0, 100, 0).map((s, i) => (i === 0 ? { ...s, rssMiB: 10 } : s));
  t.equal(slopePer10Min(warm, (s) => s.rssMiB, minute), 0);
  t.not(slopePer10Min(warm, (s) => s.rssMiB, 0), 0);
  t.end();
});

void t.test('too few readings give no slope', (t) => {
  t.equal(slopePer10Min(life(1, 0, 100, 1).slice(0, 1), (s) => s.rssMiB), undefined);
  t.end();
});

void t.test('this process can be sampled and a missing one cannot', (t) => {
  const own = sampleProcess(process.pid, 0);
  t.ok(own !== undefined && own.rssMiB > 10 && own.fds > 0, 'RSS and descriptors of this process');
  t.equal(sampleProcess(undefined, 0), undefined);
  t.equal(sampleProcess(2 ** 22 + 7, 0), undefined);
  t.end();
});

void t.test('the longest-lived process is found with its own slope', (t) => {
  const samples = [...life(1, 0, 200, 0.5), ...life(2, 11 * minute, 120, 0.2).slice(0, 4)];
  const longest = longestLife(samples);
  t.equal(longest?.pid, 1);
  t.equal(longest?.spanMs, 10 * minute);
  t.equal(longest?.rssSlope?.toFixed(3), '5.000');
  t.equal(longestLife([]), undefined);
  t.end();
});

void t.test('the floor slope sees through a collector saw-tooth, and sees a leak under it', (t) => {
  // 30 minutes read every 30 s: RSS climbs 20 MiB in 3 minutes and drops back at each collection.
  const saw = (leakPerMinute: number, phase: number): ProcessSample[] => Array.from({ length: 61 }, (_, i) => {
    const atMs = i * 30_000;
    return { atMs, pid: 1, rssMiB: 160 + (((i + phase) % 6) / 6) * 20 + leakPerMinute * (atMs / minute), fds: 40 };
  });
  const flat = saw(0, 3);
  t.equal(floorSlopePer10Min(flat.slice(0, 52), 180_000, 0)?.toFixed(2), '0.00', 'the floor is flat');
  t.equal(floorSlopePer10Min(saw(0.3, 0), 180_000, 0)?.toFixed(2), '3.00', 'a leak of 0.3 MiB a minute lifts the floor by 3 per 10 minutes');
  t.end();
});

void t.test('the heap floor is read from the readings that carry the heap, and tells a heap leak from a flat one', (t) => {
  // RSS every 5 s and the heap on every sixth reading (30 s), as the soak takes them.
  const readings = (heapLeakPerMinute: number): ProcessSample[] => Array.from({ length: 361 }, (_, i) => {
    const atMs = i * 5_000;
    const heap = i % 6 === 0 ? { heapUsedMiB: 50 + (((i / 6) % 6) / 6) * 10 + heapLeakPerMinute * (atMs / minute) } : {};
    return { atMs, pid: 1, rssMiB: 160, fds: 40, ...heap };
  });
  t.equal(floorSlopePer10Min(readings(0), 180_000, 0, (s) => s.heapUsedMiB)?.toFixed(2), '0.00', 'a saw-tooth heap has a flat floor');
  t.equal(floorSlopePer10Min(readings(0.2), 180_000, 0, (s) => s.heapUsedMiB)?.toFixed(2), '2.00', 'a heap leak of 0.2 MiB a minute lifts it by 2 per 10 minutes');
  t.equal(floorSlopePer10Min(readings(0.2).map((s) => ({ atMs: s.atMs, pid: s.pid, rssMiB: s.rssMiB, fds: s.fds })), 180_000, 0, (s) => s.heapUsedMiB), undefined, 'no heap readings, no slope');
  t.end();
});

void t.test("the heap in use is read from nodesmith's Prometheus text", (t) => {
  t.equal(heapUsedMiBIn('# HELP nodesmith_nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.\nnodesmith_nodejs_heap_size_used_bytes 52428800\n'), 50);
  t.equal(heapUsedMiBIn('nodesmith_nodejs_heap_size_total_bytes 52428800\n'), undefined, 'another series is not it');
  t.end();
});

void t.test('the readings are written as CSV', (t) => {
  t.equal(samplesCsv([{ atMs: 5, pid: 7, rssMiB: 150.04, fds: 41 }, { atMs: 35, pid: 7, rssMiB: 151, fds: 41, heapUsedMiB: 52.25 }]), 'at_ms,pid,rss_mib,fds,heap_used_mib\n5,7,150.0,41,\n35,7,151.0,41,52.3\n');
  t.end();
});
