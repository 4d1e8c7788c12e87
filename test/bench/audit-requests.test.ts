import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userRequests, writesByUser } from './audit-requests.js';

/** One audit line; `target` is "resource[/subresource]". */
const event = (id: string, verb: string, agent: string, target: string): string => {
  const [resource, subresource] = target.split('/');
  return JSON.stringify({ auditID: id, verb, user: { username: 'admin' }, userAgent: agent, objectRef: { resource, ...(subresource === undefined ? {} : { subresource }) } });
};

void t.test('writes are counted once per request, by user and program, reads left out', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
  const lines = [
    event('a', 'patch', 'kwok/v0.8.0 (linux/amd64)', 'pods/status'),
    event('a', 'patch', 'kwok/v0.8.0 (linux/amd64)', 'pods/status'), // the same request at another stage
    event('b', 'patch', 'kwok/v0.8.0 (linux/amd64)', 'pods/status'),
    event('c', 'create', 'kube-scheduler/v1.36.3 (linux/amd64) kubernetes/abc/scheduler', 'events'),
    event('d', 'list', 'kube-scheduler/v1.36.3', 'pods'),
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
  t.same(await writesByUser(path, 0), [['admin (kwok): patch pods/status', 2], ['admin (kube-scheduler): create events', 1]]);
  t.same(await writesByUser(path, Buffer.byteLength(`${lines.slice(0, 3).join('\n')}\n`)), [['admin (kube-scheduler): create events', 1]], 'from an offset on');
});

void t.test("one user's requests are counted once each, every verb, with the busiest window", async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
  const at = (id: string, user: string, verb: string, time: string): string => JSON.stringify({ auditID: id, verb, user: { username: user }, objectRef: { resource: 'pods' }, requestReceivedTimestamp: time });
  writeFileSync(path, `${[
    at('a', 'nodesmith', 'list', '2026-11-30T00:00:01Z'),
    at('a', 'nodesmith', 'list', '2026-11-30T00:00:01Z'),
    at('b', 'nodesmith', 'patch', '2026-11-30T00:00:02Z'),
    at('c', 'nodesmith', 'patch', '2026-11-30T00:00:15Z'),
    at('d', 'kwok', 'patch', '2026-11-30T00:00:02Z'),
  ].join('\n')}\n`);
  const mine = await userRequests(path, 0, 'nodesmith');
  t.equal(mine.total, 3);
  t.same(mine.byKind, [['patch pods', 2], ['list pods', 1]]);
  t.equal(mine.peak, 2, 'two requests in the first 10-second window');
});
