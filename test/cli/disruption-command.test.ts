import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Registry } from 'prom-client';
import { startHealthServer } from '../../cli/health-server.js';
import { disruptionCommand } from '../../cli/disruption-command.js';
import type { ConsolidationDryRun } from '../../provisioner/disruption/consolidation-dry-run.js';

const dump = new URL('./fixtures/disruption/cluster-dump.yaml', import.meta.url).pathname;
const now = ['--now', '2026-01-01T01:00:00Z'];

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await disruptionCommand.run(argv, { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; }, interrupted: new Promise(() => undefined) });
  return { code, stdout, stderr };
}

void t.test('the dry run over a dump: the acting command, its pod moves, and every other node with its reason', async (t) => {
  const { code, stdout, stderr } = await run(['-f', dump, '--output', 'json', ...now]);
  t.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as ConsolidationDryRun;
  t.equal(report.acts, 'multi-node');
  const [multi, single] = report.commands;
  t.same(multi?.nodes, ['spare', 'host']);
  t.equal(multi?.decision, 'delete');
  t.equal(multi?.savingsPerHour, 0.384);
  t.same(multi?.moves, [{ pod: 'shop/api-0', from: 'host', to: 'guarded' }, { pod: 'shop/api-1', from: 'host', to: 'guarded' }, { pod: 'shop/web-0', from: 'spare', to: 'guarded' }]);
  t.same(single?.nodes, ['spare'], 'single-node would act if multi-node found nothing');
  const reasons = Object.fromEntries(report.nodes.map((n) => [n.name, n.command ?? n.reason]));
  t.same(reasons, {
    byo: 'not managed by nodesmith (no NodeClaim)',
    guarded: 'pod shop/cart-0 has karpenter.sh/do-not-disrupt',
    host: 'multi-node',
    spare: 'multi-node',
  });
  t.equal(report.totals.savingsPerHour, 0.384);
  t.match(stderr, 'ignoring 1 objects of other kinds (Service shop)');
});

void t.test('a minimum saving and consolidateAfter show up as reasons with numbers', async (t) => {
  const blocked = JSON.parse((await run(['-f', dump, '-o', 'json', '--consolidation-min-savings', '$1/h', ...now])).stdout) as ConsolidationDryRun;
  t.equal(blocked.acts, null);
  t.same(blocked.commands, []);
  t.match(blocked.nodes.find((n) => n.name === 'spare')?.reason, 'deleting saves $0.1920/h, below the minimum saving $1/h');
  const early = JSON.parse((await run(['-f', dump, '-o', 'json', '--now', '2026-01-01T00:00:10Z'])).stdout) as ConsolidationDryRun;
  t.equal(early.nodes.find((n) => n.name === 'host')?.reason, 'consolidateAfter 30s has not passed since initialization (20s left)');
});

void t.test('the table names the acting method, each move and each node\'s verdict', async (t) => {
  const { code, stdout } = await run(['-f', dump, ...now]);
  t.equal(code, 0);
  t.match(stdout, /^Consolidation at 2026-01-01T01:00:00\.000Z: multi-node acts/);
  t.match(stdout, 'multi-node: delete spare, host ($0.3840/h): 3 pods fit on other nodes; saves $0.3840/h');
  t.match(stdout, '  shop/web-0: spare → guarded');
  t.match(stdout, /guarded\s+default\s+m5\.xlarge\s+on-demand\s+us-east-1a\s+0\.1920\s+1\s+pod shop\/cart-0 has karpenter\.sh\/do-not-disrupt/);
  t.match(stdout, /prices: on-demand embedded catalog/);
});

void t.test('bad flags exit 2 with the usage; bad input exits 1 with the file named', async (t) => {
  const both = await run(['-f', dump, '--kubeconfig', '/nowhere']);
  t.equal(both.code, 2);
  t.match(both.stderr, 'give one of -f (a dump or manifests), --kubeconfig (a live cluster) or --leader (the running controller)');
  t.match(both.stderr, 'Usage: nodesmith disruption');
  const badNow = await run(['-f', dump, '--now', 'tomorrow', '--output', 'xml']);
  t.equal(badNow.code, 2);
  t.match(badNow.stderr, '--output must be "table" or "json", got "xml"');
  t.match(badNow.stderr, '--now must be an RFC 3339 time');
  const dir = mkdtempSync(join(tmpdir(), 'nodesmith-disruption-'));
  writeFileSync(join(dir, 'bad.yaml'), '- just\n- a list\n');
  const bad = await run(['-f', join(dir, 'bad.yaml')]);
  t.equal(bad.code, 1);
  t.match(bad.stderr, `${join(dir, 'bad.yaml')}: document 1, line 1: not a Kubernetes object (no kind)`);
  const missing = await run(['-f', join(dir, 'absent.yaml')]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, 'no such file or directory');
});

void t.test('--leader asks the running controller\'s health server and prints its report like the dry run', async (t) => {
  const offline = JSON.parse((await run(['-f', dump, '--output', 'json', ...now])).stdout) as ConsolidationDryRun;
  const report = { leader: true, now: offline, lastPasses: [{ method: 'multi-node', command: 'delete spare, host', simulations: 2, timedOut: false, skipped: null, refused: 1 }, { method: 'single-node', command: null, simulations: 0, timedOut: false, skipped: 'nothing changed', refused: 0 }] };
  const server = await startHealthServer({ host: '127.0.0.1', port: 0, registry: new Registry(), isReady: () => true, consolidation: () => Promise.resolve(report) });
  t.teardown(server.close);
  const json = await run(['--leader', server.url, '--output', 'json']);
  t.equal(json.code, 0, json.stderr);
  t.same(JSON.parse(json.stdout), offline, 'the same report the dry run prints');
  t.match(json.stderr, /answered by http:\/\/127\.0\.0\.1:\d+ \(the leader\); last passes: multi-node 2 simulations, chose: delete spare, host; single-node skipped \(nothing changed\)/);
  const table = await run(['--leader', `${server.url}/`]);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, 'spare');
});

void t.test('--leader without consolidation, unreachable, or not a URL gives a clear error', async (t) => {
  const server = await startHealthServer({ host: '127.0.0.1', port: 0, registry: new Registry(), isReady: () => true });
  t.teardown(server.close);
  const off = await run(['--leader', server.url]);
  t.equal(off.code, 1);
  t.match(off.stderr, /\/debug\/consolidation answered 404: .*consolidation does not run in this process/);
  const bad = await run(['--leader', 'controller:8080']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, '--leader must be the controller\'s health server as http://host:port, got "controller:8080"');
  const both = await run(['--leader', server.url, '--kubeconfig', '/dev/null']);
  t.equal(both.code, 2);
  t.match(both.stderr, 'give one of -f (a dump or manifests), --kubeconfig (a live cluster) or --leader (the running controller)');
});
