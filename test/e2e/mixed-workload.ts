import * as k8s from '@kubernetes/client-node';
import { labels as wellKnown } from '../../domain/well-known-labels.js';
import { createDeployment, overcommittedNodes, type DeploymentSpec } from './e2e-support.js';
import { daemonPodsWithoutRoom, describeDaemonWithoutRoom, podsUnschedulableLongerThan, unschedulableCondition } from './pods-left-behind.js';
import type { ProductStack } from './product-stack.js';

/**
 * The shape a new user tries first and the burst benches do not: DaemonSets every cluster runs (a CNI on the host
 * network and a log agent) applied just before three Deployments, one spread over zones with maxSkew 1, one over
 * hostnames, one with soft anti-affinity. Every node pays for the daemons, and the spreads are where the plan and
 * kube-scheduler can disagree.
 */
export function mixedDaemonSets(): k8s.V1DaemonSet[] {
  const daemon = (name: string, cpu: string, memory: string, hostNetwork: boolean): k8s.V1DaemonSet => ({
    metadata: { name, namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 0, hostNetwork, tolerations: [{ operator: 'Exists' }],
          containers: [{ name, image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu, memory } } }],
        },
      },
    },
  });
  return [daemon('cni', '100m', '128Mi', true), daemon('log-agent', '50m', '64Mi', false)];
}

export function mixedDeployments(total: number): DeploymentSpec[] {
  const third = Math.round(total / 3);
  const spread = (app: string, key: string): k8s.V1TopologySpreadConstraint[] => [{ maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
  return [
    { name: 'zonal', replicas: third, cpu: '250m', memory: '512Mi', topologySpreadConstraints: spread('zonal', wellKnown.zone) },
    { name: 'spread', replicas: third, cpu: '500m', memory: '1Gi', topologySpreadConstraints: spread('spread', wellKnown.hostname) },
    {
      name: 'apart', replicas: total - 2 * third, cpu: '300m', memory: '640Mi',
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: wellKnown.hostname, labelSelector: { matchLabels: { app: 'apart' } } } }] } },
    },
  ];
}

/** The CNI and the log agent, in kube-system: the soak runs them too, under its churn and faults. */
export async function applyDaemonSets(product: ProductStack): Promise<void> {
  const apps = product.kc.makeApiClient(k8s.AppsV1Api);
  for (const ds of mixedDaemonSets()) await apps.createNamespacedDaemonSet({ namespace: 'kube-system', body: ds });
}

export async function applyMixedWorkload(product: ProductStack, total: number): Promise<void> {
  await applyDaemonSets(product);
  for (const d of mixedDeployments(total)) await createDeployment(product, d);
}

/** One look at the cluster: what must stay 0 in every sample, and how far the workload got. */
export interface MixedSample {
  readonly atMs: number;
  readonly overcommitted: readonly string[];
  /** DaemonSet pods kube-scheduler found no room for (PodScheduled=False, Unschedulable). */
  readonly daemonsUnschedulable: readonly string[];
  readonly pods: number;
  readonly running: number;
  /** The workload's pods Unschedulable for longer than `strandedAfterMs`, with how long. */
  readonly stranded: readonly string[];
  /** Every workload pod kube-scheduler has marked Unschedulable now, with its condition's message. */
  readonly unschedulable: readonly string[];
}

export async function sampleMixed(product: ProductStack, strandedAfterMs: number): Promise<MixedSample> {
  const now = Date.now();
  const [daemons, workload, nodes] = await Promise.all([
    product.core.listNamespacedPod({ namespace: 'kube-system' }),
    product.core.listNamespacedPod({ namespace: 'default' }),
    product.core.listNode(),
  ]);
  const unschedulable = workload.items.flatMap((p) => { const c = unschedulableCondition(p); return c === undefined ? [] : [`${p.metadata?.name ?? ''}: ${c.message ?? ''}`]; });
  return {
    atMs: now, overcommitted: await overcommittedNodes(product), unschedulable,
    daemonsUnschedulable: daemonPodsWithoutRoom(daemons.items, nodes.items).map(describeDaemonWithoutRoom),
    stranded: podsUnschedulableLongerThan(workload.items, strandedAfterMs, now),
    pods: workload.items.length, running: workload.items.filter((p) => p.status?.phase === 'Running' && (p.spec?.nodeName ?? '') !== '').length,
  };
}

/** One line of a sample, for the test's progress comments. */
export function describeSample(sample: MixedSample, startedMs: number): string {
  return `t=${((sample.atMs - startedMs) / 1000).toFixed(0)}s running ${String(sample.running)}/${String(sample.pods)}, unschedulable ${String(sample.unschedulable.length)}, `
    + `daemons without room ${String(sample.daemonsUnschedulable.length)}, nodes over allocatable ${String(sample.overcommitted.length)}`;
}

/** The Events of a pod, oldest first, as "reason: message" (kube-scheduler's FailedScheduling, nodesmith's Nominated …). */
export async function podEventLines(product: ProductStack, name: string): Promise<string[]> {
  const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items;
  return events.map((e) => `${e.reason ?? ''} ×${String(e.count ?? 1)}: ${e.message ?? ''}`);
}
