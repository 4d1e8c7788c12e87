import t from 'tap';
import { waitFor } from '../stack/wait-for.js';
import { createDeployment, listInstances, waitForRunning, withProduct } from './e2e-support.js';
import {
  admissionCheck, jobPods, jobSuspended, jobYaml, nodeClaims, queueYaml, requestCondition, requestFor, withKueue,
} from './kueue-support.js';

/**
 * The real Kueue v0.17 with its ProvisioningRequest admission check configured for the
 * `check-capacity.autoscaling.x-k8s.io` class: Kueue asks "is there room now?" and nodesmith answers from the nodes
 * there are, launching nothing. A Job that fits the one node a Deployment launched is admitted and runs there; a Job
 * that does not fit is held suspended with nodesmith's reason, and no node is launched for it, though the NodePool
 * could launch one.
 */
const product = await withProduct(t);
await withKueue(t, product);
const checkCapacity = 'check-capacity.autoscaling.x-k8s.io';
await product.apply(product.nodePoolYaml('default', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i] }
        - { key: karpenter.k8s.aws/instance-size, operator: In, values: [xlarge] }`));
await product.apply(queueYaml('check', checkCapacity));

const live = async (): Promise<number> => (await listInstances(product)).filter((i) => i.state === 'pending' || i.state === 'running').length;
const claimNames = async (): Promise<string[]> => (await nodeClaims(product)).map((c) => c.name).sort();

// One m6i.xlarge (4 vCPU) for a 250m pod: room for three more one-CPU pods beside it, not for eight.
await createDeployment(product, { name: 'small', replicas: 1, cpu: '250m', memory: '256Mi' });
const { nodes } = await waitForRunning(product, 'small', 1);
const [existing] = [...nodes.keys()];
const claimsBefore = await claimNames();

void t.test('a Job of 3 pods that fits the existing node is admitted on nodesmith\'s check and runs there, with no launch', async (t) => {
  t.equal(await live(), 1, 'before the Job: the one instance the Deployment launched');
  await product.apply(jobYaml('fits', 'check', 3));
  const { workload, request } = await requestFor(product, 'fits');
  t.equal(request.spec.provisioningClassName, checkCapacity, 'Kueue asked with the check-capacity class');
  t.same(request.spec.podSets.map((s) => s.count), [3], 'for the 3 pods of the Job');
  const found = await requestCondition(product, workload.metadata.name, 'Provisioned', 'True');
  t.equal(found.reason, 'CapacityIsFound', `nodesmith: ${found.message ?? ''}`);
  const check = (await admissionCheck(product, 'fits', true)).admissionChecks?.find((c) => c.name === 'check');
  t.equal(check?.state, 'Ready', 'Kueue admitted the Workload, its admission check Ready');
  const pods = await waitFor('the 3 pods to be bound', async () => {
    const now = await jobPods(product, 'fits');
    return now.length === 3 && now.every((p) => p.node !== '') ? now : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 });
  t.same(pods.map((p) => p.node), [existing, existing, existing], 'every pod of the Job is on the node that was there');
  t.same(await claimNames(), claimsBefore, 'no NodeClaim was made');
  t.equal(await live(), 1, 'and no instance launched');
});

void t.test('a Job of 8 pods that does not fit is not admitted, and nothing is launched for it', async (t) => {
  await product.apply(jobYaml('too-big', 'check', 8));
  const { workload } = await requestFor(product, 'too-big');
  const notFound = await requestCondition(product, workload.metadata.name, 'Provisioned', 'False');
  t.equal(notFound.reason, 'CapacityIsNotFound', `nodesmith: ${notFound.message ?? ''}`);
  t.match(notFound.message ?? '', /of 8 pods fit the existing nodes/, 'answered from the nodes there are');
  // Two of nodesmith's checks (10 s apart) and Kueue's own reconciles: the answer stands, and nothing launches.
  await new Promise((resolve) => setTimeout(resolve, 25_000));
  const check = (await admissionCheck(product, 'too-big', false)).admissionChecks?.find((c) => c.name === 'check');
  t.equal(check?.state, 'Pending', 'the admission check stays Pending');
  t.match(check?.message ?? '', /of 8 pods fit the existing nodes/, "with nodesmith's answer as its message");
  t.ok(await jobSuspended(product, 'too-big'), 'the Job is still suspended');
  t.equal((await jobPods(product, 'too-big')).length, 0, 'and has no pod');
  t.same(await claimNames(), claimsBefore, 'no NodeClaim was made');
  t.equal(await live(), 1, 'and no instance launched');
});
