// An object deleted between the informer's read and our write answers 404 NotFound. That is not a failure: the
// reconcile has nothing left to write, and must not log a warning with a stack trace for it.
import t, { type Test } from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { ControllerRunner, type ControllerLogger } from '../../../provisioner/runtime/controller-runner.js';
import { writeCondition } from '../../../provisioner/disruption/condition-writer.js';
import { ApiConnection } from '../../../provisioner/kube/api-connection.js';
import { KubeNodeClassClient } from '../../../provisioner/kube/ec2nodeclass-client.js';
import { KubeRest } from '../../../provisioner/kube/kube-rest.js';
import { KubeNodeClaimClient } from '../../../provisioner/kube/nodeclaim-client.js';
import { KubeNodeWriter } from '../../../provisioner/kube/node-client.js';
import { KubeNodePoolStatusWriter } from '../../../provisioner/kube/nodepool-status-client.js';
import { isStoreConflictError } from '../../../provisioner/ports/nodeclaim-store.js';
import { NodePoolReadinessController } from '../../../provisioner/provisioning/nodepool-readiness.js';
import { NodePoolUsageController } from '../../../provisioner/provisioning/nodepool-usage.js';
import { nodeClaim } from '../../fakes/builders.js';
import { apiServer, type Responder } from '../../fakes/fake-api-server.js';
import { stateWith } from '../../fakes/cluster-state.js';
import { staticTarget } from '../../fakes/kube-targets.js';
import { nodeClass, nodePool } from '../../fakes/provisioning-builders.js';

/** The metav1.Status the API server answers for an object that does not exist. */
const notFound = (plural: string, name: string): { status: number; body: unknown } => ({
  status: 404, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${plural} "${name}" not found` },
});

async function restAgainst(t: Test, respond: Responder): Promise<{ rest: KubeRest; seen: { method: string; url: string }[] }> {
  const api = await apiServer(t, respond);
  const rest = new KubeRest(new ApiConnection(staticTarget(api.url, 't')));
  t.teardown(() => rest.close());
  return { rest, seen: api.seen };
}

function recordingLogger(): ControllerLogger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (obj: object, msg: string): void => { lines.push(`${level} ${msg} ${JSON.stringify(obj)}`); };
  return { lines, debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}

void t.test('reconciling a NodePool deleted since the informer read it ends quietly, without a warning', async (t) => {
  const { rest, seen } = await restAgainst(t, (s) => notFound('nodepools.karpenter.sh', s.url.split('/')[5] ?? ''));
  const writer = new KubeNodePoolStatusWriter(rest);
  // Still in the cache: the informer has not delivered the DELETED event yet. Its stored usage is stale, so the
  // usage controller writes too.
  const state = stateWith({ nodePools: [{ ...nodePool('just-deleted'), status: { nodes: 3 } }], nodeClasses: [nodeClass('default')] });
  const clock = new FakeClock(0);
  const log = recordingLogger();
  const results: string[] = [];
  const runner = new ControllerRunner({
    clock, log,
    controllers: [new NodePoolReadinessController({ state, writer, clock }), new NodePoolUsageController({ state, writer })],
    onReconciled: (controller, _seconds, result) => results.push(`${controller} ${result}`),
  });
  await runner.runDue();
  t.same(seen.map((s) => `${s.method} ${s.url.split('?')[0] ?? ''}`), [
    'PATCH /apis/karpenter.sh/v1/nodepools/just-deleted/status',
    'PATCH /apis/karpenter.sh/v1/nodepools/just-deleted/status',
  ], 'both controllers tried their status patch');
  t.same(results, ['nodepool.readiness success', 'nodepool.usage success']);
  t.same(log.lines.filter((l) => l.startsWith('warn') || l.startsWith('error')), [], 'nothing logged as a failure');
});

void t.test('a NodeClaim status patch answered 404 returns undefined; other failures still throw', async (t) => {
  const { rest } = await restAgainst(t, (s) => {
    if (s.url.includes('/nodeclaims/gone/')) return notFound('nodeclaims.karpenter.sh', 'gone');
    if (s.url.includes('/nodeclaims/moved/')) return { status: 409, body: { kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' } };
    return { status: 500, body: { kind: 'Status', code: 500, message: 'etcdserver: request timed out' } };
  });
  const client = new KubeNodeClaimClient(rest);
  t.equal(await client.patchStatus('gone', { nodeName: 'n' }), undefined);
  const conflict = await client.patchStatus('moved', { nodeName: 'n' }, { resourceVersion: '1' }).then(() => undefined, (e: unknown) => e);
  t.ok(isStoreConflictError(conflict), 'a 409 is still a conflict');
  await t.rejects(client.patchStatus('busy', { nodeName: 'n' }), /patching status of nodeclaim busy: .*500 etcdserver: request timed out/);
});

void t.test('a condition write to a NodeClaim deleted between its read and its patch reports it gone', async (t) => {
  const claim = nodeClaim({ name: 'gone' });
  const { rest, seen } = await restAgainst(t, (s) => (s.method === 'GET'
    ? { status: 200, body: { ...claim, metadata: { ...claim.metadata, resourceVersion: '7' } } }
    : notFound('nodeclaims.karpenter.sh', 'gone')));
  const written = await writeCondition(new KubeNodeClaimClient(rest), 'gone', { type: 'Consolidatable', status: 'True', reason: 'Consolidatable' }, 0);
  t.equal(written, false);
  t.same(seen.map((s) => s.method), ['GET', 'PATCH']);
});

void t.test('an EC2NodeClass status patch answered 404 resolves', async (t) => {
  const { rest, seen } = await restAgainst(t, () => notFound('ec2nodeclasses.karpenter.k8s.aws', 'gone'));
  await new KubeNodeClassClient(rest).patchStatus('gone', { conditions: [] });
  t.equal(seen.length, 1);
});

void t.test("a virtual node's heartbeat answered 404 (withdrawn since it was listed) resolves; other failures still throw", async (t) => {
  const { rest, seen } = await restAgainst(t, (s) => s.url.includes('/broken') ? { status: 500, body: { kind: 'Status', code: 500, message: 'etcd timeout' } } : notFound('nodes', 'launchable-web-x1'));
  const writer = new KubeNodeWriter(rest);
  await writer.setConditions('launchable-web-x1', [{ type: 'Ready', status: 'True' }]);
  t.same(seen.map((s) => `${s.method} ${s.url.split('?')[0] ?? ''}`), ['PATCH /api/v1/nodes/launchable-web-x1/status']);
  await t.rejects(writer.setConditions('broken', [{ type: 'Ready', status: 'True' }]), /500/);
});
