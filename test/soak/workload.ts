import type * as k8s from '@kubernetes/client-node';
import type { DeploymentSpec } from '../e2e/e2e-support.js';
import type { ProductStack } from '../e2e/product-stack.js';

/** The label a drift edit changes on the general pool's template. */
export const revisionLabel = 'soak.nodesmith.io/revision';
const expiringTaint = { key: 'soak.nodesmith.io/pool', value: 'expiring', effect: 'NoSchedule' } as const;

/** Where a pod of the workload goes: the general pool (spot and on-demand) or the pool whose nodes expire. */
export type SoakPool = 'soak' | 'expiring';

export function poolPlacement(pool: SoakPool): { nodeSelector: Record<string, string>; tolerations?: k8s.V1Toleration[] } {
  return pool === 'soak' ? { nodeSelector: { 'karpenter.sh/nodepool': 'soak' } } : { nodeSelector: { 'karpenter.sh/nodepool': 'expiring' }, tolerations: [{ ...expiringTaint, operator: 'Equal' }] };
}

/** The general pool: spot and on-demand c/m/r, consolidated, with a template label a drift edit can change. */
export function soakPoolYaml(product: ProductStack, revision: number): string {
  const yaml = product.nodePoolYaml('soak', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r] }`, `  disruption:
    consolidateAfter: 20s
    budgets: [{ nodes: "30%" }]`);
  return yaml.replace('  template:\n', `  template:\n    metadata: { labels: { ${revisionLabel}: "${String(revision)}" } }\n`);
}

/** The pool whose nodes expire: on-demand c/m, tainted so that only the pods meant for it land there. */
export function expiringPoolYaml(product: ProductStack, expireAfter: string): string {
  return product.nodePoolYaml('expiring', `
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m] }
      expireAfter: ${expireAfter}
      taints: [{ key: ${expiringTaint.key}, value: ${expiringTaint.value}, effect: ${expiringTaint.effect} }]`);
}

/** A Deployment of the workload and the replica counts churn moves it between. */
export interface SoakApp {
  readonly spec: DeploymentSpec;
  readonly min: number;
  readonly max: number;
  /** Guarded by a PDB (maxUnavailable 1) for the whole run. */
  readonly guarded: boolean;
}

const byApp = (app: string): k8s.V1LabelSelector => ({ matchLabels: { app } });

/** Plain pods, zone spread, one per node, PDB-guarded, and pods on the expiring pool. */
export function soakApps(): SoakApp[] {
  return [
    { spec: { name: 'web', replicas: 4, cpu: '250m', memory: '256Mi', ...poolPlacement('soak') }, min: 1, max: 8, guarded: false },
    {
      spec: { name: 'spread', replicas: 3, cpu: '500m', memory: '512Mi', ...poolPlacement('soak'), topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: byApp('spread') }] },
      min: 2, max: 7, guarded: false,
    },
    {
      spec: { name: 'anti', replicas: 2, cpu: '250m', memory: '256Mi', ...poolPlacement('soak'), affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: byApp('anti') }] } } },
      min: 1, max: 4, guarded: false,
    },
    { spec: { name: 'guarded', replicas: 3, cpu: '500m', memory: '512Mi', ...poolPlacement('soak') }, min: 2, max: 5, guarded: true },
    { spec: { name: 'steady', replicas: 2, cpu: '250m', memory: '256Mi', ...poolPlacement('expiring') }, min: 1, max: 3, guarded: true },
  ];
}

export function pdb(name: string, app: string): k8s.V1PodDisruptionBudget {
  return { metadata: { name, namespace: 'default' }, spec: { maxUnavailable: 1, selector: byApp(app) } };
}

/** A Job of `pods` pods that kwok completes 15-35 s after each starts (test/stack/kwok-stages.yaml, pod-complete). */
export function job(name: string, pods: number, pool: SoakPool): k8s.V1Job {
  const placement = poolPlacement(pool);
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      completions: pods, parallelism: pods, backoffLimit: 2, ttlSecondsAfterFinished: 30,
      template: {
        metadata: { labels: { job: name } },
        spec: {
          restartPolicy: 'Never', terminationGracePeriodSeconds: 0,
          containers: [{ name: 'task', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '250m', memory: '256Mi' } } }],
          nodeSelector: placement.nodeSelector, ...(placement.tolerations === undefined ? {} : { tolerations: placement.tolerations }),
        },
      },
    },
  };
}
