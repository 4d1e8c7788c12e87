import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { passesFromNow } from './controller-passes.js';
import { listInstances, overcommittedNodes, withProduct } from './e2e-support.js';
import {
  admissionCheck, conditionOf, isTrue, jobPods, jobSuspended, jobYaml, nodeClaims, queueYaml, requestCondition, requestFor, requestsOf,
  withKueue, workloadOf, type Condition,
} from './kueue-support.js';

/**
 * The real Kueue v0.17 asks nodesmith for capacity: its ProvisioningRequest admission check makes a
 * best-effort-atomic-scale-up request for a queued Job, holds the Job suspended until nodesmith says the request is
 * Provisioned, then admits it onto the nodes launched for it; the nodes go once the Job is done. A Job the NodePool's
 * limit cannot hold whole gets no node at all: its Workload waits on the check with nodesmith's reason, or, when the
 * config asks for `noRetry`, Kueue retries and then rejects it.
 */
// The ProvisioningRequest controller every 2 s, so "nothing for three of its passes" takes 6 s, not 30; disruption and
// the Consolidatable writer every 2 s, so the Job's empty nodes go sooner after it is done (a poll waits for that).
const product = await withProduct(t, { controllerPeriods: { provisioningrequest: 2_000, disruption: 2_000, 'nodeclaim.consolidatable': 2_000 } });
await withKueue(t, product);
const atomic = 'best-effort-atomic-scale-up.autoscaling.x-k8s.io';
const consumeKey = 'autoscaling.x-k8s.io/consume-provisioning-request';
await product.apply(product.nodePoolYaml('batch', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge, 2xlarge] }`, `  limits: { cpu: "40" }
  disruption: { consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 10s }`));
await product.apply(queueYaml('gang', atomic));

const live = async (): Promise<number> => (await listInstances(product)).filter((i) => i.state === 'pending' || i.state === 'running').length;
const minutes = (n: number): number => n * 60_000;

/**
 * Waits for Provisioned=True, or until the Job has a pod or is unsuspended before it; says which came first. The Job
 * is read before the request, so a pod seen while the request was not yet Provisioned is one Kueue let run before
 * nodesmith said yes. (Returned, not thrown: waitFor takes a throw for "not yet" and would poll on past it.)
 */
function provisionedWhileSuspended(job: string, workload: string): Promise<{ provisioned: Condition } | { ranEarly: string }> {
  return waitFor(`${job}'s request to be Provisioned`, async () => {
    const [pods, suspended] = [await jobPods(product, job), await jobSuspended(product, job)];
    const provisioned = conditionOf((await requestsOf(product, workload))[0]?.status?.conditions, 'Provisioned');
    if (provisioned?.status === 'True') return { provisioned };
    if (pods.length > 0 || !suspended) return { ranEarly: `${String(pods.length)} pods, suspend=${String(suspended)}` };
    return undefined;
  }, { timeoutMs: minutes(4), intervalMs: 500 });
}

/** The messages of the Workload's Events with `reason`. */
async function workloadEvents(workload: string, reason: string): Promise<string[]> {
  const r = await product.stack.kubectl(['get', 'events', '-n', 'default', '--field-selector', `involvedObject.kind=Workload,involvedObject.name=${workload},reason=${reason}`, '-o', 'json']);
  return (JSON.parse(r.stdout) as { items: { message?: string }[] }).items.map((e) => e.message ?? '');
}

void t.test('a queued Job of 8 pods waits suspended until nodesmith provisions its request, then runs on those nodes alone, and the nodes go when it is done', async (t) => {
  await product.apply(jobYaml('train', 'gang', 8));
  t.ok(await jobSuspended(product, 'train'), "Kueue's webhook suspended the Job as it was created");
  const { workload, request } = await requestFor(product, 'train');
  t.equal(request.spec.provisioningClassName, atomic, 'Kueue asked for the best-effort-atomic class');
  t.same(request.spec.podSets.map((s) => s.count), [8], 'for the 8 pods of the Job, in one PodSet');

  const first = await provisionedWhileSuspended('train', workload.metadata.name);
  if ('ranEarly' in first) throw new Error(`train ran before its request was Provisioned: ${first.ranEarly}`);
  const { provisioned } = first;
  t.equal(provisioned.reason, 'CapacityIsProvisioned', `nodesmith launched nodes for it: ${provisioned.message ?? ''}`);
  const claims = await nodeClaims(product);
  t.ok(claims.length > 0 && claims.every((c) => c.node !== ''), `${String(claims.length)} NodeClaims launched, each with its Node`);
  t.equal(await live(), claims.length, 'one instance per NodeClaim');

  const check = (await admissionCheck(product, 'train', true)).admissionChecks?.find((c) => c.name === 'gang');
  t.equal(check?.state, 'Ready', 'Kueue admitted the Workload, its admission check Ready');
  t.equal(check?.podSetUpdates?.[0]?.annotations?.[consumeKey], request.metadata.name, "and tells the Job's pods to consume the request");

  const pods = await waitFor('the 8 pods to be bound', async () => {
    const now = await jobPods(product, 'train');
    return now.length === 8 && now.every((p) => p.node !== '') ? now : undefined;
  }, { timeoutMs: minutes(3), intervalMs: 500 });
  t.ok(pods.every((p) => p.annotations[consumeKey] === request.metadata.name), 'every pod carries the consume annotation');
  const launched = new Set(claims.map((c) => c.node));
  t.same(pods.filter((p) => !launched.has(p.node)).map((p) => `${p.name} on ${p.node}`), [], 'every pod runs on a node launched for the request');
  t.same((await nodeClaims(product)).map((c) => c.name).sort(), claims.map((c) => c.name).sort(), 'and no further NodeClaim was made');
  t.same(await overcommittedNodes(product), [], 'no node holds more than its allocatable');
  const consumed = await requestCondition(product, workload.metadata.name, 'BookingExpired', 'True');
  t.equal(consumed.reason, 'CapacityBookingConsumed', 'the booking ended because every pod came, not by time');

  await waitFor('the Job to complete and Kueue to finish its Workload', async () => {
    const r = await product.stack.kubectl(['get', 'job', 'train', '-n', 'default', '-o', 'jsonpath={.status.succeeded}']);
    return r.stdout.trim() === '8' && isTrue((await workloadOf(product, 'train'))?.status?.conditions, 'Finished') ? true : undefined;
  }, { timeoutMs: minutes(3), intervalMs: 1000 });
  await waitFor('every node of the request to be consolidated away', async () => ((await nodeClaims(product)).length === 0 && (await live()) === 0 ? true : undefined), { timeoutMs: minutes(4), intervalMs: 1000 });
  t.pass('once the Job was done, its empty nodes were removed and their instances terminated');
});

void t.test('a Job of 48 pods, more than the NodePool limit of 40 CPUs holds, gets no node, and Kueue keeps it waiting on the check', async (t) => {
  await product.apply(jobYaml('huge', 'gang', 48));
  const { workload, request } = await requestFor(product, 'huge');
  const refused = await requestCondition(product, workload.metadata.name, 'Provisioned', 'False');
  t.equal(refused.reason, 'CapacityIsNotFound', `nodesmith: ${refused.message ?? ''}`);
  t.match(refused.message ?? '', /so no node is launched/, 'all or none');
  // Three passes of nodesmith's, counted on its /metrics (Kueue reconciles on what each writes): still nothing.
  const passes = await passesFromNow(product.healthUrl, { provisioningrequest: 4 });
  await waitFor('three more passes of the ProvisioningRequest controller', async () => ((await passes()).done ? true : undefined), { timeoutMs: minutes(2), intervalMs: 500 });
  t.equal((await nodeClaims(product)).length, 0, 'no NodeClaim was made for part of the Job');
  t.equal(await live(), 0, 'no instance was launched');
  t.ok(await jobSuspended(product, 'huge'), 'the Job is still suspended');
  t.equal((await jobPods(product, 'huge')).length, 0, 'and has no pod');
  const check = (await admissionCheck(product, 'huge', false)).admissionChecks?.find((c) => c.name === 'gang');
  t.equal(check?.state, 'Pending', 'the admission check stays Pending: Provisioned=False is a wait, not a failure');
  t.match(check?.message ?? '', /so no node is launched/, "with nodesmith's reason as its message");
  t.same((await requestsOf(product, workload.metadata.name)).map((r) => r.metadata.name), [request.metadata.name], 'and Kueue made no second attempt');
  await product.stack.kubectl(['delete', 'job', 'huge', '-n', 'default', '--wait=false']);
});

void t.test('with noRetry, the same Job fails its request at once, and Kueue retries it once and then rejects the Workload', async (t) => {
  await product.apply(queueYaml('strict', atomic, { parameters: { noRetry: 'true' }, retryStrategy: '{ backoffLimitCount: 1, backoffBaseSeconds: 1, backoffMaxSeconds: 5 }' }));
  await product.apply(jobYaml('huge-strict', 'strict', 48));
  const { workload } = await requestFor(product, 'huge-strict');
  const name = workload.metadata.name;
  // The check is Rejected only for a moment: deactivating evicts the Workload, and eviction resets its checks to
  // Pending. The lasting outcome is the inactive Workload; the check's history is in its Events, as Kueue keeps only
  // a Workload's last request (all within a second or two: nodesmith answers each request as it is created).
  await waitFor('Kueue to deactivate the Workload', async () => ((await workloadOf(product, 'huge-strict'))?.spec.active === false ? true : undefined), { timeoutMs: minutes(2), intervalMs: 500 });
  const history = await waitFor('the check\'s Events', async () => {
    const transitions = (await workloadEvents(name, 'AdmissionCheckUpdated')).map((m) => /from (\w+) to (\w+)/.exec(m)?.slice(1).join(' -> ') ?? m).sort();
    const rejections = await workloadEvents(name, 'AdmissionCheckRejected');
    return transitions.length >= 2 && rejections.length > 0 ? { transitions, rejections } : undefined;
  }, { timeoutMs: minutes(1), intervalMs: 500 });
  t.same(history.transitions, ['Pending -> Rejected', 'Pending -> Retry'], 'the first failure set the check to Retry, the second to Rejected');
  t.match(history.rejections, [/^Deactivating workload because AdmissionCheck for strict was Rejected: .*so no node is launched/], "and Kueue deactivated the Workload with nodesmith's reason: its one retry was used");
  const requests = await requestsOf(product, name);
  t.same(requests.map((r) => r.metadata.name), [`${name}-strict-2`], 'the request left is the second attempt');
  t.match(conditionOf(requests[0]?.status?.conditions, 'Failed'), { status: 'True', reason: 'CapacityIsNotFound' }, 'and nodesmith failed it as it failed the first');
  t.equal((await nodeClaims(product)).length, 0, 'no NodeClaim was ever made');
  t.ok(await jobSuspended(product, 'huge-strict'), 'the Job never ran');
});
