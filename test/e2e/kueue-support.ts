import type { Test } from 'tap';
import { startKueue, type RunningKueue } from '../stack/kueue.js';
import { waitFor } from '../stack/wait-for.js';
import type { ProductStack } from './product-stack.js';

/** The real Kueue manager beside nodesmith for one test file; its log's tail is printed when the test failed. */
export async function withKueue(t: Test, product: ProductStack): Promise<RunningKueue> {
  const kueue = await startKueue(product.stack);
  t.teardown(async () => {
    if (!t.passing()) t.comment(`kueue log (${kueue.component.logPath}):\n${kueue.component.tail(80)}`);
    await kueue.stop();
  });
  return kueue;
}

/**
 * One ClusterQueue whose admission check asks for capacity with ProvisioningRequests of `className`, and its
 * LocalQueue in `default`: quota enough for any job here, so a job waits on the check alone. `parameters` go onto every
 * request Kueue makes; `retryStrategy` (YAML flow text) replaces Kueue's default of 3 retries 60 s apart.
 */
export function queueYaml(name: string, className: string, options: { parameters?: Readonly<Record<string, string>>; retryStrategy?: string } = {}): string {
  return `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: { name: ${name} }
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: { name: ${name} }
spec:
  provisioningClassName: ${className}
  managedResources: [cpu]
  parameters: ${JSON.stringify(options.parameters ?? {})}${options.retryStrategy === undefined ? '' : `\n  retryStrategy: ${options.retryStrategy}`}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: { name: ${name} }
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: { apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: ${name} }
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: { name: ${name} }
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: ${name}
      resources: [{ name: cpu, nominalQuota: 1000 }, { name: memory, nominalQuota: 4000Gi }]
  admissionChecksStrategy:
    admissionChecks: [{ name: ${name} }]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: { name: ${name}, namespace: default }
spec: { clusterQueue: ${name} }
`;
}

/**
 * A batch/v1 Job of `pods` one-CPU pods, all at once (parallelism = completions), in the LocalQueue `queue`. Created
 * unsuspended, as a user writes it: Kueue's webhook suspends it. kwok's pod-complete stage ends each pod 15-50 s after
 * it starts, as a batch task would.
 */
export function jobYaml(name: string, queue: string, pods: number): string {
  return `apiVersion: batch/v1
kind: Job
metadata: { name: ${name}, namespace: default, labels: { kueue.x-k8s.io/queue-name: ${queue} } }
spec:
  parallelism: ${String(pods)}
  completions: ${String(pods)}
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers: [{ name: work, image: registry.k8s.io/pause:3.10, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`;
}

export interface Condition { type: string; status: string; reason?: string; message?: string }
export interface AdmissionCheckState { name: string; state: string; message?: string; podSetUpdates?: { annotations?: Record<string, string> }[] }
export interface Workload {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { active?: boolean };
  status?: { conditions?: Condition[]; admissionChecks?: AdmissionCheckState[] };
}
export interface ProvisioningRequest {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { provisioningClassName: string; parameters?: Record<string, string>; podSets: { podTemplateRef: { name: string }; count: number }[] };
  status?: { conditions?: Condition[]; provisioningClassDetails?: Record<string, string> };
}

async function items<T>(product: ProductStack, resource: string): Promise<T[]> {
  const r = await product.stack.kubectl(['get', resource, '-n', 'default', '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl get ${resource}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { items: T[] }).items;
}

/** The Workload Kueue made for a Job (its owner), if any yet. */
export async function workloadOf(product: ProductStack, job: string): Promise<Workload | undefined> {
  return (await items<Workload>(product, 'workloads.kueue.x-k8s.io')).find((w) => w.metadata.ownerReferences?.some((o) => o.kind === 'Job' && o.name === job));
}

/** The ProvisioningRequests Kueue made for a Workload (their owner), oldest attempt first. */
export async function requestsOf(product: ProductStack, workload: string): Promise<ProvisioningRequest[]> {
  const all = await items<ProvisioningRequest>(product, 'provisioningrequests.autoscaling.x-k8s.io');
  return all.filter((r) => r.metadata.ownerReferences?.some((o) => o.kind === 'Workload' && o.name === workload)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

export const conditionOf = (conditions: readonly Condition[] | undefined, type: string): Condition | undefined => conditions?.find((c) => c.type === type);
export const isTrue = (conditions: readonly Condition[] | undefined, type: string): boolean => conditionOf(conditions, type)?.status === 'True';

/** The Job's pods: how many there are, and each one's node and annotations. */
export async function jobPods(product: ProductStack, job: string): Promise<{ name: string; node: string; phase: string; annotations: Record<string, string> }[]> {
  const pods = (await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `job-name=${job}` })).items;
  return pods.map((p) => ({ name: p.metadata?.name ?? '', node: p.spec?.nodeName ?? '', phase: p.status?.phase ?? '', annotations: p.metadata?.annotations ?? {} }));
}

export async function jobSuspended(product: ProductStack, job: string): Promise<boolean> {
  const r = await product.stack.kubectl(['get', 'job', job, '-n', 'default', '-o', 'jsonpath={.spec.suspend}']);
  return r.stdout.trim() === 'true';
}

/** Every NodeClaim, with the node it became (empty until it has one). */
export async function nodeClaims(product: ProductStack): Promise<{ name: string; node: string }[]> {
  const r = await product.stack.kubectl(['get', 'nodeclaims', '-o', 'json']);
  const claims = (JSON.parse(r.stdout) as { items: { metadata: { name: string }; status?: { nodeName?: string } }[] }).items;
  return claims.map((c) => ({ name: c.metadata.name, node: c.status?.nodeName ?? '' }));
}

const minutes = (n: number): number => n * 60_000;

/** The Job's Workload and its first ProvisioningRequest, once Kueue has made both. */
export function requestFor(product: ProductStack, job: string): Promise<{ workload: Workload; request: ProvisioningRequest }> {
  return waitFor(`Kueue's ProvisioningRequest for ${job}`, async () => {
    const workload = await workloadOf(product, job);
    const request = workload === undefined ? undefined : (await requestsOf(product, workload.metadata.name))[0];
    return workload === undefined || request === undefined ? undefined : { workload, request };
  }, { timeoutMs: minutes(1), intervalMs: 500 });
}

/** Waits until the Workload's first request has condition `type` at `status`. */
export function requestCondition(product: ProductStack, workload: string, type: string, status: string): Promise<Condition> {
  return waitFor(`the request of ${workload} to be ${type}=${status}`, async () => {
    const condition = conditionOf((await requestsOf(product, workload))[0]?.status?.conditions, type);
    return condition?.status === status ? condition : undefined;
  }, { timeoutMs: minutes(2), intervalMs: 500 });
}

/** Waits until the Job's Workload is (or is not) Admitted; returns its status then. */
export async function admissionCheck(product: ProductStack, job: string, admitted: boolean): Promise<Workload['status'] & object> {
  return waitFor(`${job}'s Workload to be ${admitted ? '' : 'not '}admitted`, async () => {
    const status = (await workloadOf(product, job))?.status;
    return status !== undefined && isTrue(status.conditions, 'Admitted') === admitted ? status : undefined;
  }, { timeoutMs: minutes(1), intervalMs: 500 });
}
